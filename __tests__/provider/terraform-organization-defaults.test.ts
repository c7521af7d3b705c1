/**
 * An organization's default fragments under the real Terraform CLI against the emulator:
 * set with a fragment the same apply creates (typed variables, a prefix, a tag the stack
 * declares), a plan with no changes after, a new machine made elsewhere importing them, and
 * destroy clearing them.
 */
import * as path from 'node:path';
import { App, LocalBackend, TerraformStack } from 'cdktf';
import { FleetProvider, Fragment, FragmentTag, ModularResource, OrganizationDefaults } from '../../src';
import { openEmulatorProject, type EmulatorProject } from '../e2e/fleet-fixture';
import { requireTerraform, terraform, terraformHome } from './terraform-cli';

jest.setTimeout(300_000);

let project: EmulatorProject;
let env: NodeJS.ProcessEnv;
let stackDir: string;

beforeAll(async () => {
  requireTerraform();
  project = await openEmulatorProject('ff-terraform-org-defaults-');
  env = await terraformHome(project.dir, project.env);
  stackDir = path.join(project.outdir, 'stacks', 'fleet');
});

afterAll(async () => {
  await project?.close();
});

const tf = (...args: string[]) => terraform(stackDir, env, ...args);
const variables = { pin: 11, fast: true, limits: { max: 3 } };

function synth(): void {
  const app = new App({ outdir: project.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new LocalBackend(stack, { path: path.join(project.dir, 'terraform.fleet.tfstate') });
  new FleetProvider(stack, 'cloud', {});
  const rig = new Fragment(stack, 'rig');
  new ModularResource(rig, 'board', {
    name: 'board',
    api: 'rdk:component:board',
    model: 'rdk:builtin:fake',
    attributes: { pin: rig.variable('pin'), fast: rig.variable('fast'), limits: rig.variable('limits') },
  });
  new FragmentTag(stack, 'stable', { fragment: rig, tag: 'stable' });
  new OrganizationDefaults(stack, 'defaults', { fragments: [{ fragment: rig, version: 'stable', prefix: 'front', variables }] });
  app.synth();
}

test('set default fragments with a fragment the apply creates; no changes after; destroy clears them', async () => {
  const { organizationId, locationId } = project.credentials;
  synth();
  expect((await tf('init', '-input=false', '-no-color')).stderr).toBe('');
  const plan = await tf('plan', '-input=false', '-no-color', '-detailed-exitcode');
  expect(plan.stderr).toBe('');
  expect(plan.code).toBe(2);
  expect(plan.stdout).toContain('# fleetform_organization_defaults.defaults will be created');
  expect(plan.stdout).toContain('Plan: 3 to add, 0 to change, 0 to destroy.');

  const apply = await tf('apply', '-input=false', '-no-color', '-auto-approve');
  expect(apply.stderr).toBe('');
  expect(apply.stdout).toContain('Apply complete! Resources: 3 added, 0 changed, 0 destroyed.');
  const [rig] = (await project.client.appClient.listFragments(organizationId)).filter((f) => f.name === 'rig');
  const declared = [{ id: rig?.id, version: 'stable', prefix: 'front', variables }];
  expect((await project.client.appClient.getOrganization(organizationId)).defaultFragments).toEqual(declared);

  const again = await tf('plan', '-input=false', '-no-color', '-detailed-exitcode');
  expect(again.stdout).toContain('No changes.');
  expect(again.code).toBe(0);

  const machineId = await project.client.appClient.newMachine('fresh', locationId);
  expect((await project.client.appClient.getMachineParts(machineId))[0]?.config).toEqual({ fragments: declared });

  const destroy = await tf('destroy', '-input=false', '-no-color', '-auto-approve');
  expect(destroy.stderr).toBe('');
  expect(destroy.stdout).toContain('Destroy complete! Resources: 3 destroyed.');
  expect((await project.client.appClient.getOrganization(organizationId)).defaultFragments).toEqual([]);
});
