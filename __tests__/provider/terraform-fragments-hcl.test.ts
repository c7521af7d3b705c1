/**
 * The Terraform example the reference docs show under fleetform_fragment, as written, under
 * the real Terraform CLI against the emulator: a fragment, its stable tag and two machines
 * importing it (for_each, each its own pin) apply, and the next plan changes nothing.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fragmentResource } from '../../src/domain/resource-attributes';
import { openEmulatorProject, type EmulatorProject } from '../e2e/fleet-fixture';
import { requireTerraform, terraform, terraformHome } from './terraform-cli';

jest.setTimeout(300_000);

let project: EmulatorProject;

afterAll(async () => {
  await project?.close();
});

test("the fragment kind's documented example applies as written; the next plan changes nothing", async () => {
  requireTerraform();
  project = await openEmulatorProject('ff-terraform-fragments-hcl-');
  const env = await terraformHome(project.dir, project.env);
  const dir = path.join(project.dir, 'hcl');
  await fs.mkdir(dir);
  const providers =
    'terraform {\n  required_providers {\n    fleetform = { source = "fleetform/fleetform", version = "0.1.0" }\n  }\n}\n\nprovider "fleetform" {}\n';
  await fs.writeFile(path.join(dir, 'main.tf'), `${providers}\n${fragmentResource.example ?? ''}\n`);
  const tf = (...args: string[]) => terraform(dir, env, ...args);
  expect((await tf('init', '-input=false', '-no-color')).stderr).toBe('');
  const apply = await tf('apply', '-input=false', '-no-color', '-auto-approve');
  expect(apply.stderr).toBe('');
  expect(apply.stdout).toContain('Apply complete! Resources: 4 added, 0 changed, 0 destroyed.');
  const [fragment] = await project.client.appClient.listFragments(project.credentials.organizationId);
  expect((await project.client.appClient.getFragment(fragment?.id as string)).tags).toEqual([{ tag: 'stable', revision: '1' }]);
  const machine = (await project.client.appClient.listMachines(project.credentials.locationId)).find((m) => m.name === 'picker-2');
  const resolved = await project.client.appClient.listMachineFragments(machine?.id as string);
  expect(resolved.resolved.map((r) => [r.fragmentId, r.revision, r.error])).toEqual([[fragment?.id, '1', undefined]]);
  const again = await tf('plan', '-input=false', '-no-color', '-detailed-exitcode');
  expect(again.stdout).toContain('No changes.');
  expect(again.code).toBe(0);
});
