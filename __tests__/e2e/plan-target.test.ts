/**
 * `fleetform plan --target` and `fleetform apply --target`: only the addresses given are
 * read, planned and applied; the plan says it is targeted; an unknown address is named.
 */
import type { ServiceClient } from '../../src/api/client';
import { openEmulatorProject, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(120_000);

let p: EmulatorProject;
let client: ServiceClient;

beforeEach(async () => {
  p = await openEmulatorProject('ff-e2e-target-');
  ({ client } = p);
});

afterEach(async () => {
  await p?.close();
});

/** The attributes of the machine's ultrasonic sensor, as the service has them. */
async function sensorAttributes(name: string): Promise<Record<string, unknown>> {
  const entry = (await p.backend().read('fleet')).resources[`fleetform_machine.${name}`];
  if (!entry?.ids.part_id) throw new Error(`no part for ${name} in state`);
  const part = await client.appClient.getMachinePart(entry.ids.part_id);
  const sensor = (part.config.components as Array<Record<string, unknown>>).find((c) => c.name === 'ultrasonic-1');
  return (sensor?.attributes ?? {}) as Record<string, unknown>;
}

test('plan and apply --target change the machine given and leave the other for the next plan', async () => {
  p.synth();
  const setup = await p.run('apply', '--auto-approve');
  expect(setup.code).toBe(0);
  // A change to both machines.
  p.synth({ sensorAttributes: { echo_pin: '13' } });

  const plan = await p.run('plan', '--target', 'fleetform_machine.picker-1', '--detailed-exitcode');
  expect(plan.stderr).toBe('');
  expect(plan.code).toBe(2);
  expect(plan.stdout).toContain('Warning: a targeted plan (--target fleetform_machine.picker-1)');
  expect(plan.stdout).toContain('fleetform_machine.picker-1');
  expect(plan.stdout).not.toContain('fleetform_machine.picker-2');
  expect(plan.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');

  const json = await p.run('plan', '--target', 'fleetform_machine.picker-1', '--json');
  const doc = JSON.parse(json.stdout) as { targets: string[]; resource_changes: Array<{ address: string }> };
  expect(doc.targets).toEqual(['fleetform_machine.picker-1']);
  expect(doc.resource_changes.map((c) => c.address)).toEqual(['fleetform_machine.picker-1']);

  const apply = await p.run('apply', '--target', 'fleetform_machine.picker-1', '--auto-approve');
  expect(apply.code).toBe(0);
  expect(apply.stdout).toContain('Apply complete! Resources: 0 added, 1 changed, 0 destroyed.');
  expect(await sensorAttributes('picker-1')).toMatchObject({ echo_pin: '13' });
  expect(await sensorAttributes('picker-2')).not.toHaveProperty('echo_pin');

  // The full plan finds what the targeted apply left.
  const rest = await p.run('plan', '--detailed-exitcode');
  expect(rest.code).toBe(2);
  expect(rest.stdout).not.toContain('targeted plan');
  expect(rest.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
  expect(rest.stdout).toContain('fleetform_machine.picker-2');
});

test('an address no stack declares or holds is an error naming it and the form of an address', async () => {
  p.synth();
  const plan = await p.run('plan', '--target', 'fleetform_machine.picker-9', '--target', 'fleetform_machine.picker-1');
  expect(plan.code).toBe(1);
  expect(plan.stderr).toContain('--target fleetform_machine.picker-9: no stack declares it or holds it in state');
  expect(plan.stderr).toContain('TYPE.NAME');
  expect(plan.stderr).not.toMatch(/\n\s+at /);
  const apply = await p.run('apply', '--target', 'picker-1', '--auto-approve');
  expect(apply.code).toBe(1);
  expect(apply.stderr).toContain('--target picker-1');
});
