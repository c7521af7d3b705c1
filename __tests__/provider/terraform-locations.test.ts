/**
 * The location kind under the real Terraform CLI against the emulator: an organization
 * with no location yet gets one, a nested one and a machine in it; a rename is in place;
 * destroy deletes the machine before its location and the inner location before the outer.
 */
import * as path from 'node:path';
import { App, LocalBackend, TerraformStack } from 'cdktf';
import { FleetProvider, Location, Machine } from '../../src';
import { openEmulatorProject, type EmulatorProject } from '../e2e/fleet-fixture';
import { requireTerraform, terraform, terraformHome } from './terraform-cli';

jest.setTimeout(300_000);

let project: EmulatorProject;
let env: NodeJS.ProcessEnv;
let stackDir: string;

beforeAll(async () => {
  requireTerraform();
  project = await openEmulatorProject('ff-terraform-locations-');
  // The organization starts without a location: the stack makes its first.
  await project.client.appClient.deleteLocation(project.credentials.locationId);
  env = await terraformHome(project.dir, project.env);
  stackDir = path.join(project.outdir, 'stacks', 'fleet');
});

afterAll(async () => {
  await project?.close();
});

const tf = (...args: string[]) => terraform(stackDir, env, ...args);

function synth(siteName: string): void {
  const app = new App({ outdir: project.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new LocalBackend(stack, { path: path.join(project.dir, 'terraform.fleet.tfstate') });
  new FleetProvider(stack, 'cloud', {});
  const site = new Location(stack, 'site', { name: siteName });
  const lab = new Location(stack, 'lab', { name: 'lab', parent: site });
  new Machine(stack, 'arm', { location: lab });
  app.synth();
}

test('create a location, a nested one and a machine in it; rename in place; destroy in order', async () => {
  const { organizationId } = project.credentials;
  synth('site');
  const init = await tf('init', '-input=false', '-no-color');
  expect(init.stderr).toBe('');

  const plan = await tf('plan', '-input=false', '-no-color', '-detailed-exitcode');
  expect(plan.stderr).toBe('');
  expect(plan.code).toBe(2);
  expect(plan.stdout).toContain('# fleetform_location.site will be created');
  expect(plan.stdout).toMatch(/\+ location_id\s+= \(known after apply\)/);
  expect(plan.stdout).toContain('Plan: 3 to add, 0 to change, 0 to destroy.');

  const apply = await tf('apply', '-input=false', '-no-color', '-auto-approve');
  expect(apply.stderr).toBe('');
  expect(apply.stdout).toContain('Apply complete! Resources: 3 added, 0 changed, 0 destroyed.');
  const locations = await project.client.appClient.listLocations(organizationId);
  const site = locations.find((l) => l.name === 'site');
  const lab = locations.find((l) => l.name === 'lab');
  expect((await project.client.appClient.getLocation(lab?.id as string)).parentLocationId).toBe(site?.id);
  expect((await project.client.appClient.listMachines(lab?.id as string)).map((m) => m.name)).toEqual(['arm']);

  const again = await tf('plan', '-input=false', '-no-color', '-detailed-exitcode');
  expect(again.stdout).toContain('No changes.');
  expect(again.code).toBe(0);

  synth('campus');
  const rename = await tf('plan', '-input=false', '-no-color', '-detailed-exitcode');
  expect(rename.code).toBe(2);
  expect(rename.stdout).toContain('# fleetform_location.site will be updated in-place');
  expect(rename.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
  expect((await tf('apply', '-input=false', '-no-color', '-auto-approve')).stdout).toContain('0 added, 1 changed, 0 destroyed');
  expect((await project.client.appClient.getLocation(site?.id as string)).name).toBe('campus');

  const destroy = await tf('destroy', '-input=false', '-no-color', '-auto-approve');
  expect(destroy.stderr).toBe('');
  expect(destroy.stdout).toContain('Destroy complete! Resources: 3 destroyed.');
  expect(await project.client.appClient.listLocations(organizationId)).toEqual([]);
});
