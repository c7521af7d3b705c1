/**
 * A stack's rollout over machines that import a fragment: the gate waits for the revision
 * such a machine reports (its write's time, then the fragments it reaches), so a healthy
 * wave passes, and a rolled-back machine is seen running its old config again.
 */
import * as path from 'node:path';
import { App, LocalBackend, TerraformStack } from 'cdktf';
import { Component, FleetProvider, Fragment, Machine, ModularResource, Module, Rollout } from '../../src';
import { EmulatorService } from '../../src/api/emulator-control';
import { suiteOnQuickMachines, type EmulatorProject } from './fleet-fixture';
import { pickerNames } from './rollout-fixture';

jest.setTimeout(180_000);

const MACHINES = 3;
let p: EmulatorProject;
suiteOnQuickMachines('ff-rollout-fragment-machines-', (opened) => (p = opened));

/** Machines importing the fragment `rig` (acme:sensors and a board), each with a camera of its own and its own module version. */
function synth(shape: { cameraWidth: number; version: string; rollout: boolean }): void {
  const app = new App({ outdir: p.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new LocalBackend(stack, { path: path.join(path.dirname(path.resolve(p.outdir)), 'terraform.fleet.tfstate') });
  new FleetProvider(stack, 'cloud', {});
  const rig = new Fragment(stack, 'rig', { name: 'machines-rig' });
  new Component(rig, 'gate', { name: 'gate', api: 'rdk:component:sensor', model: 'rdk:builtin:fake' });
  const machines = pickerNames(MACHINES).map((name) => {
    const machine = new Machine(stack, name, { name }).useFragment(rig);
    const sensors = new Module(machine, 'sensors', { moduleId: 'acme:sensors', version: shape.version });
    new ModularResource(machine, 'board', { name: 'board-1', api: 'rdk:component:board', model: sensors.model('pi-board') });
    new Component(machine, 'camera', {
      name: 'cam',
      api: 'rdk:component:camera',
      model: 'rdk:builtin:fake',
      attributes: { width_px: shape.cameraWidth },
    });
    return machine;
  });
  if (shape.rollout)
    new Rollout(stack, 'careful', {
      waves: [{ machines: [machines[0] as Machine] }, { fraction: 1 }],
      gate: { timeout: '30s', settle: '300ms' },
    });
  app.synth();
}

test('a healthy change to machines importing a fragment passes each wave of its rollout', async () => {
  synth({ cameraWidth: 640, version: '1.2.5', rollout: false });
  expect((await p.run('apply', '--auto-approve')).code).toBe(0);
  synth({ cameraWidth: 800, version: '1.2.5', rollout: true });
  const apply = await p.run('apply', '--auto-approve');
  expect(`${apply.stdout}${apply.stderr}`).not.toContain('not 20');
  expect(apply.code).toBe(0);
  expect(apply.stdout).toMatch(/rollout careful: wave 1 passed/);
  expect(apply.stdout).toMatch(/rollout careful: wave 2 passed/);
});

test('a canary that fails is rolled back and seen running its old config again', async () => {
  synth({ cameraWidth: 640, version: '1.2.5', rollout: false });
  expect((await p.run('apply', '--auto-approve')).code).toBe(0);
  const controls = p.client.clientFor(EmulatorService);
  await controls.setMachineFaults({ specs: ['module=acme:sensors@1.3.0:crash'] });
  try {
    synth({ cameraWidth: 640, version: '1.3.0', rollout: true });
    const apply = await p.run('apply', '--auto-approve');
    expect(apply.code).toBe(1);
    expect(apply.stdout).toMatch(/rollout careful: wave 1: picker-1 FAILED/);
    expect(apply.stdout).not.toContain('changed on the service after the rollout wrote it');
    expect(apply.stdout).toMatch(/picker-1.*running it again/);
  } finally {
    await controls.setMachineFaults({ specs: [] });
  }
});
