/**
 * The machine part kind under the real Terraform CLI against the emulator: a machine and a
 * part of it (a module whose token is a secret) apply, the next plan changes nothing, an
 * edit of the part is an in-place update of it alone, and destroy removes both.
 */
import * as path from 'node:path';
import { App, LocalBackend, TerraformStack } from 'cdktf';
import { Component, FleetProvider, Machine, Module, Part, Secret } from '../../src';
import { openEmulatorProject, type EmulatorProject } from '../e2e/fleet-fixture';
import { requireTerraform, terraform, terraformHome } from './terraform-cli';

jest.setTimeout(300_000);

let project: EmulatorProject;

afterAll(async () => {
  await project?.close();
});

function synth(armModel: string): void {
  const app = new App({ outdir: project.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new LocalBackend(stack, { path: path.join(project.dir, 'terraform.fleet.tfstate') });
  new FleetProvider(stack, 'cloud', {});
  const rover = new Machine(stack, 'rover');
  new Component(rover, 'base', { api: 'rdk:component:base', model: 'fake' });
  const arm = new Part(rover, 'arm', { name: 'arm-controller' });
  new Module(arm, 'driver', {
    name: 'driver',
    type: 'local',
    executablePath: '/opt/arm/run.sh',
    env: { ARM_TOKEN: Secret.plainText('tf-arm-secret-5') },
  });
  new Component(arm, 'arm', { api: 'rdk:component:arm', model: 'fake', attributes: { arm_model: armModel } });
  app.synth();
}

test('a machine and its other part apply, plan no changes, update the part in place and destroy', async () => {
  requireTerraform();
  project = await openEmulatorProject('ff-terraform-parts-');
  const env = await terraformHome(project.dir, project.env);
  const tf = (...args: string[]) => terraform(path.join(project.outdir, 'stacks', 'fleet'), env, ...args);
  synth('ur5e');
  expect((await tf('init', '-input=false', '-no-color')).stderr).toBe('');

  const apply = await tf('apply', '-input=false', '-no-color', '-auto-approve');
  expect(apply.stderr).toBe('');
  expect(apply.stdout).toContain('Apply complete! Resources: 2 added, 0 changed, 0 destroyed.');
  expect(apply.stdout).not.toContain('tf-arm-secret-5');
  const [machine] = await project.client.appClient.listMachines(project.credentials.locationId);
  const arm = (await project.client.appClient.getMachineParts(machine?.id ?? '')).find((p) => !p.mainPart);
  expect(arm).toMatchObject({
    name: 'arm-controller',
    config: { components: [{ name: 'arm', attributes: { arm_model: 'ur5e' } }], modules: [{ env: { ARM_TOKEN: 'tf-arm-secret-5' } }] },
  });

  const again = await tf('plan', '-input=false', '-no-color', '-detailed-exitcode');
  expect(again.stderr).toBe('');
  expect(again.stdout).toContain('No changes.');
  expect(again.code).toBe(0);

  synth('ur10e');
  const edit = await tf('apply', '-input=false', '-no-color', '-auto-approve');
  expect(edit.stderr).toBe('');
  expect(edit.stdout).toContain('# fleetform_machine_part.rover_arm will be updated in-place');
  expect(edit.stdout).toContain('Apply complete! Resources: 0 added, 1 changed, 0 destroyed.');
  expect((await project.client.appClient.getMachinePart(arm?.id ?? '')).config).toMatchObject({
    components: [{ attributes: { arm_model: 'ur10e' } }],
  });

  const destroy = await tf('destroy', '-input=false', '-no-color', '-auto-approve');
  expect(destroy.stderr).toBe('');
  expect(destroy.stdout).toContain('Destroy complete! Resources: 2 destroyed.');
  expect(await project.client.appClient.listMachines(project.credentials.locationId)).toEqual([]);
});
