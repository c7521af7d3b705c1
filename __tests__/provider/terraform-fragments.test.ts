/**
 * The fragment kinds under the real Terraform CLI against the emulator: a fragment, its
 * `stable` tag and a machine importing it at the tag are created in one apply; a change
 * of the fragment saves a new revision and the tag follows it in the same apply.
 */
import * as path from 'node:path';
import { App, LocalBackend, TerraformStack } from 'cdktf';
import { FleetProvider, Fragment, FragmentTag, Machine, ModularResource, Module } from '../../src';
import { openEmulatorProject, type EmulatorProject } from '../e2e/fleet-fixture';
import { requireTerraform, terraform, terraformHome } from './terraform-cli';

jest.setTimeout(300_000);

let project: EmulatorProject;
let env: NodeJS.ProcessEnv;
let stackDir: string;

beforeAll(async () => {
  requireTerraform();
  project = await openEmulatorProject('ff-terraform-fragments-');
  env = await terraformHome(project.dir, project.env);
  stackDir = path.join(project.outdir, 'stacks', 'fleet');
});

afterAll(async () => {
  await project?.close();
});

const tf = (...args: string[]) => terraform(stackDir, env, ...args);

function synth(timeoutMs: number): void {
  const app = new App({ outdir: project.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new LocalBackend(stack, { path: path.join(project.dir, 'terraform.fleet.tfstate') });
  new FleetProvider(stack, 'cloud', {});
  const rig = new Fragment(stack, 'rig', { name: 'sensor-rig' });
  const sensors = new Module(rig, 'sensors', { name: 'sensors', moduleId: 'acme:sensors', version: '~1.2' });
  new ModularResource(rig, 'board', {
    name: 'board',
    api: 'rdk:component:board',
    model: sensors.model('pi-board'),
    attributes: { pin: rig.variable('board_pin'), timeout_ms: timeoutMs },
  });
  new FragmentTag(stack, 'rig-stable', { fragment: rig, tag: 'stable' });
  new Machine(stack, 'picker', { name: 'picker' }).useFragment(rig, { version: 'stable', prefix: 'front', variables: { board_pin: '11' } });
  app.synth();
}

test('create a fragment, its tag and a machine importing it; a change saves a new revision the tag follows', async () => {
  synth(150);
  const init = await tf('init', '-input=false', '-no-color');
  expect(init.stderr).toBe('');

  const plan = await tf('plan', '-input=false', '-no-color', '-detailed-exitcode');
  expect(plan.stderr).toBe('');
  expect(plan.stdout).toContain('# fleetform_fragment.rig will be created');
  expect(plan.stdout).toContain('Plan: 3 to add, 0 to change, 0 to destroy.');
  expect(plan.code).toBe(2);

  const apply = await tf('apply', '-input=false', '-no-color', '-auto-approve');
  expect(apply.stderr).toBe('');
  expect(apply.stdout).toContain('Apply complete! Resources: 3 added, 0 changed, 0 destroyed.');
  const fragments = await project.client.appClient.listFragments(project.credentials.organizationId);
  expect(fragments.map((f) => [f.name, f.revision])).toEqual([['sensor-rig', '1']]);
  const fragmentId = fragments[0]?.id as string;
  expect((await project.client.appClient.getFragment(fragmentId)).tags).toEqual([{ tag: 'stable', revision: '1' }]);
  const machine = (await project.client.appClient.listMachines(project.credentials.locationId)).find((m) => m.name === 'picker');
  const resolved = await project.client.appClient.listMachineFragments(machine?.id as string);
  expect(resolved.resolved.map((r) => [r.fragmentId, r.revision])).toEqual([[fragmentId, '1']]);

  const again = await tf('plan', '-input=false', '-no-color', '-detailed-exitcode');
  expect(again.stdout).toContain('No changes.');
  expect(again.code).toBe(0);

  synth(250);
  const change = await tf('plan', '-input=false', '-no-color', '-detailed-exitcode');
  expect(change.stderr).toBe('');
  expect(change.stdout).toContain('# fleetform_fragment.rig will be updated in-place');
  expect(change.stdout).toContain('# fleetform_fragment_tag.rig-stable will be updated in-place');
  expect(change.stdout).toMatch(/~ revision\s+= "1" -> \(known after apply\)/);
  expect(change.stdout).toContain('Plan: 0 to add, 2 to change, 0 to destroy.');
  const applied = await tf('apply', '-input=false', '-no-color', '-auto-approve');
  expect(applied.stderr).toBe('');
  expect(applied.stdout).toContain('Apply complete! Resources: 0 added, 2 changed, 0 destroyed.');
  const detail = await project.client.appClient.getFragment(fragmentId);
  expect(detail.fragment.revision).toBe('2');
  expect(detail.tags).toEqual([{ tag: 'stable', revision: '2' }]);
  expect((await tf('plan', '-input=false', '-no-color', '-detailed-exitcode')).code).toBe(0);

  const destroy = await tf('destroy', '-input=false', '-no-color', '-auto-approve');
  expect(destroy.stderr).toBe('');
  expect(destroy.stdout).toContain('Destroy complete! Resources: 3 destroyed.');
  expect(await project.client.appClient.listFragments(project.credentials.organizationId)).toEqual([]);
});
