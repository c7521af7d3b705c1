/**
 * A machine with a part besides its main one through `fleetform plan/apply/destroy` on the
 * emulator: the part is created with its own config, edited and renamed in place, its
 * secrets kept out of plans and state, removed alone, and gone with its machine.
 */
import { App, TerraformStack } from 'cdktf';
import type { Construct } from 'constructs';
import { Component, FleetProvider, Machine, Module, Part, Secret } from '../../src';
import { openEmulatorProject, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(240_000);

let p: EmulatorProject | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

function synth(project: EmulatorProject, body: (stack: Construct) => void): void {
  const app = new App({ outdir: project.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new FleetProvider(stack, 'cloud', {});
  body(stack);
  app.synth();
}

/** The rover: a base on its main part, an arm on a part of its own whose module holds a token. */
function rover(armPort: string, partName = 'arm-controller') {
  return (s: Construct) => {
    const machine = new Machine(s, 'rover');
    new Component(machine, 'base', { api: 'rdk:component:base', model: 'fake' });
    const arm = new Part(machine, 'arm', { name: partName, debug: true });
    new Module(arm, 'drivers', {
      name: 'drivers',
      type: 'local',
      executablePath: '/opt/arm/run.sh',
      env: { ARM_TOKEN: Secret.plainText('tok-secret-1') },
    });
    new Component(arm, 'arm', { api: 'rdk:component:arm', model: 'fake', attributes: { port: armPort } });
  };
}

async function partsOf(project: EmulatorProject, machineName: string) {
  const machine = (await project.client.appClient.listMachines(project.credentials.locationId)).find((m) => m.name === machineName);
  if (!machine) throw new Error(`no machine ${machineName}`);
  return project.client.appClient.getMachineParts(machine.id);
}

/** A project whose rover (and its arm part) is applied. */
async function appliedRover(): Promise<EmulatorProject> {
  p = await openEmulatorProject('ff-parts-');
  synth(p, rover('/dev/ttyUSB0'));
  expect((await p.run('apply', '--auto-approve')).code).toBe(0);
  return p;
}

test('a part is created with its own config, its secret never shown; the next plan changes nothing', async () => {
  p = await openEmulatorProject('ff-parts-');
  synth(p, rover('/dev/ttyUSB0'));
  const plan = await p.run('plan', '--detailed-exitcode');
  expect(plan.code).toBe(2);
  expect(plan.stdout).toContain('# fleetform_machine_part.rover_arm will be created');
  expect(plan.stdout).toMatch(/\+ machine_id\s+= \(known after apply\)/);
  expect(plan.stdout).toContain('Plan: 2 to add, 0 to change, 0 to destroy.');
  expect(plan.stdout).not.toContain('tok-secret-1');

  expect((await p.run('apply', '--auto-approve')).code).toBe(0);
  const parts = await partsOf(p, 'rover');
  const main = parts.find((x) => x.mainPart);
  const arm = parts.find((x) => !x.mainPart);
  expect((main?.config.components as Array<{ name: string }>).map((c) => c.name)).toEqual(['base']);
  expect(arm).toMatchObject({
    name: 'arm-controller',
    config: { debug: true, components: [{ name: 'arm', attributes: { port: '/dev/ttyUSB0' } }] },
  });
  expect((arm?.config.modules as Array<{ env: Record<string, string> }>)[0]?.env).toEqual({ ARM_TOKEN: 'tok-secret-1' });
  expect(JSON.stringify((await p.backend().read('fleet')).resources['fleetform_machine_part.rover_arm'])).not.toContain('tok-secret-1');
  expect((await p.run('plan', '--detailed-exitcode')).code).toBe(0);
});

test('an edit and a rename of a part are made in place; an edit on the service is drift the plan shows on the part', async () => {
  const q = await appliedRover();
  const arm = (await partsOf(q, 'rover')).find((x) => !x.mainPart);
  synth(q, rover('/dev/ttyUSB1', 'arm'));
  const edit = await q.run('plan', '--detailed-exitcode');
  expect(edit.code).toBe(2);
  expect(edit.stdout).toContain('# fleetform_machine_part.rover_arm will be updated in-place');
  expect(edit.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
  expect((await q.run('apply', '--auto-approve')).code).toBe(0);
  const edited = (await partsOf(q, 'rover')).find((x) => !x.mainPart);
  expect(edited).toMatchObject({ id: arm?.id, name: 'arm', config: { components: [{ attributes: { port: '/dev/ttyUSB1' } }] } });

  await q.client.appClient.updateMachinePart(arm?.id ?? '', 'arm', { ...edited?.config, debug: false });
  const drift = await q.run('plan', '--detailed-exitcode');
  expect(drift.code).toBe(2);
  expect(drift.stdout).toMatch(/~ config\.debug\s+= false -> true/);
  expect(drift.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
});

test('a part removed from code is deleted alone: its machine and main part stay', async () => {
  const q = await appliedRover();
  const main = (await partsOf(q, 'rover')).find((x) => x.mainPart);
  synth(q, (s) => new Component(new Machine(s, 'rover'), 'base', { api: 'rdk:component:base', model: 'fake' }));
  const removal = await q.run('plan');
  expect(removal.stdout).toContain('# fleetform_machine_part.rover_arm will be destroyed');
  expect(removal.stdout).toContain('Plan: 0 to add, 0 to change, 1 to destroy.');
  expect((await q.run('apply', '--auto-approve')).code).toBe(0);
  expect((await partsOf(q, 'rover')).map((x) => x.name)).toEqual([main?.name]);
});

test('a destroy removes the part and its machine; an import of a main part is refused naming the machine', async () => {
  p = await appliedRover();
  const main = (await partsOf(p, 'rover')).find((x) => x.mainPart);

  synth(p, (s) => {
    rover('/dev/ttyUSB0')(s);
    new Part(s.node.findChild('rover') as Machine, 'main', { name: main?.name ?? '' });
  });
  const imported = await p.run('import', 'fleetform_machine_part.rover_main', main?.id ?? '');
  expect(imported.code).toBe(1);
  expect(imported.stdout + imported.stderr).toContain(`is the main part of machine ${main?.machineId}`);

  synth(p, rover('/dev/ttyUSB0'));
  expect((await p.run('destroy', '--auto-approve')).code).toBe(0);
  expect((await p.client.appClient.listMachines(p.credentials.locationId)).map((m) => m.name)).not.toContain('rover');
});
