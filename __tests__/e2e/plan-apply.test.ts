import * as os from 'node:os';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { ServiceClient } from '../../src/api/client';
import { fleetform, openEmulatorProject, startFleetform, type EmulatorProject, type FleetShape } from './fleet-fixture';

jest.setTimeout(120_000);

let p: EmulatorProject;
let dir: string;
let env: Record<string, string>;
let client: ServiceClient;
const synth = (shape: FleetShape = {}) => p.synth(shape);
const run = (...args: string[]) => p.run(...args);
const backend = () => p.backend();

async function machinePart(name: string) {
  const state = await backend().read('fleet');
  const entry = state.resources[`fleetform_machine.${name}`];
  if (!entry?.ids.part_id) throw new Error(`no part for ${name} in state`);
  return client.appClient.getMachinePart(entry.ids.part_id);
}

/** Each test has a project and an emulator of its own: none depends on another having run. */
beforeEach(async () => {
  p = await openEmulatorProject('ff-e2e-');
  ({ dir, env, client } = p);
});

afterEach(async () => {
  await p?.close();
});

/** The fleet of `shape` synthesized and applied: where a test that changes it starts. */
async function applied(shape: FleetShape = {}): Promise<void> {
  synth(shape);
  const apply = await run('apply', '--auto-approve');
  if (apply.code !== 0) throw new Error(`setup apply failed: ${apply.stdout}${apply.stderr}`);
}

test('a new fleet: plan shows creates, apply makes them, the next plan has no changes', async () => {
  synth();
  const plan = await run('plan', '--detailed-exitcode');
  expect(plan.stderr).toBe('');
  expect(plan.code).toBe(2);
  expect(plan.stdout).toContain('+ resource "fleetform_machine" "picker-1"');
  expect(plan.stdout).toContain('Plan: 3 to add, 0 to change, 0 to destroy.');
  expect(plan.stdout).not.toContain('token-one');

  const apply = await run('apply', '--auto-approve');
  expect(apply.code).toBe(0);
  expect(apply.stdout).toContain('Apply complete! Resources: 3 added, 0 changed, 0 destroyed.');

  const part = await machinePart('picker-1');
  const components = part.config.components as Array<Record<string, unknown>>;
  expect(components.map((c) => c.name).sort()).toEqual(['board-1', 'ultrasonic-1']);

  const again = await run('plan', '--detailed-exitcode');
  expect(again.code).toBe(0);
  expect(again.stdout).toContain('No changes.');

  const stateFile = path.join(dir, '.fleetform', 'state', 'fleet.state.json');
  expect((await fs.stat(stateFile)).mode & 0o777).toBe(0o600);
  expect(await fs.readFile(stateFile, 'utf8')).not.toContain('token-one');
});

test('env prints the environment a module process receives: the version it runs, identity, placeholders substituted, secrets masked', async () => {
  await applied();
  const out = await run('env', 'fleetform_machine.picker-1', 'acme_sensors');
  const ids = (await p.backend().read('fleet')).resources['fleetform_machine.picker-1']?.ids;
  expect(out.code).toBe(0);
  expect(out.stderr).toBe('');
  const lines = out.stdout.trim().split('\n');
  expect(lines).toEqual(
    expect.arrayContaining([
      'API_TOKEN=(sensitive)',
      `VIAM_MACHINE_ID=${ids?.machine_id}`,
      `VIAM_MACHINE_PART_ID=${ids?.part_id}`,
      'VIAM_MODULE_ID=acme:sensors',
      'VIAM_MODULE_NAME=acme_sensors',
      `VIAM_MODULE_ROOT=${os.homedir()}/.viam/packages/data/module/acme-sensors-1.2.5`,
    ]),
  );
  expect(lines.find((l) => l.startsWith('PATH='))).toMatch(/^PATH=\/opt\/acme\/bin:\//);
  expect(out.stdout).not.toContain('token-one');
});

test('changing one attribute shows only that attribute, and apply writes it', async () => {
  await applied();
  synth({ timeoutMs: 200 });
  const plan = await run('plan', '--detailed-exitcode');
  expect(plan.code).toBe(2);
  expect(plan.stdout).toContain('~ config.components.ultrasonic-1.attributes.timeout_ms = 150 -> 200');
  expect(plan.stdout).not.toMatch(/trigger_pin/);
  expect(plan.stdout).toContain('Plan: 0 to add, 2 to change, 0 to destroy.');
  expect((await run('apply', '--auto-approve')).code).toBe(0);
  const part = await machinePart('picker-2');
  const sensor = (part.config.components as Array<{ name: string; attributes?: { timeout_ms?: number } }>).find(
    (c) => c.name === 'ultrasonic-1',
  );
  expect(sensor?.attributes?.timeout_ms).toBe(200);
});

test('a module policy change shows the policy, the version it resolves to and a restart warning; a secret change stays masked', async () => {
  await applied({ timeoutMs: 200 });
  synth({ timeoutMs: 200, policy: '^1', token: 'token-two' });
  const plan = await run('plan');
  expect(plan.stdout).toContain('~ config.modules.acme_sensors.version = "~1.2" -> "^1"');
  expect(plan.stdout).toMatch(/policy \^1 .*runs 1\.3\.0/);
  expect(plan.stdout).toContain('restarts the module');
  expect(plan.stdout).toContain('API_TOKEN = (sensitive) -> (sensitive)');
  expect(plan.stdout).not.toMatch(/token-(one|two)/);
  expect((await run('apply', '--auto-approve')).code).toBe(0);
});

test("drift made behind fleetform's back shows in the plan and apply reverts it", async () => {
  await applied({ timeoutMs: 200, policy: '^1', token: 'token-two' });
  const part = await machinePart('picker-1');
  const config = JSON.parse(JSON.stringify(part.config)) as { components: Array<{ name: string; attributes: Record<string, unknown> }> };
  const sensor = config.components.find((c) => c.name === 'ultrasonic-1');
  if (!sensor) throw new Error('sensor missing');
  sensor.attributes.timeout_ms = 999;
  await client.appClient.updateMachinePart(part.id, part.name, config, part.lastUpdated);

  const plan = await run('plan', '--json');
  const doc = JSON.parse(plan.stdout) as {
    resource_changes: Array<{
      address: string;
      drift: Array<{ path: string; before: unknown; after: unknown }>;
      change: { actions: string[] };
    }>;
  };
  const m1 = doc.resource_changes.find((c) => c.address === 'fleetform_machine.picker-1');
  expect(m1?.drift).toEqual([{ path: 'config.components.ultrasonic-1.attributes.timeout_ms', kind: 'change', before: 200, after: 999 }]);
  expect(m1?.change.actions).toEqual(['update']);
  const text = await run('plan');
  expect(text.stdout).toContain('Objects have changed outside of fleetform');
  expect((await run('apply', '--auto-approve')).code).toBe(0);
  expect((await run('plan', '--detailed-exitcode')).code).toBe(0);
});

test('a saved plan applies only to the world it was made from', async () => {
  await applied({ timeoutMs: 200, policy: '^1', token: 'token-two' });
  synth({ timeoutMs: 300, policy: '^1', token: 'token-two' });
  const planFile = path.join(dir, 'change.plan');
  expect((await run('plan', '--out', planFile)).code).toBe(0);
  expect((await fs.stat(planFile)).mode & 0o777).toBe(0o600);
  expect(await fs.readFile(planFile, 'utf8')).not.toContain('token-two');

  const part = await machinePart('picker-2');
  await client.appClient.updateMachinePart(part.id, part.name, { ...part.config, components: [] }, part.lastUpdated);
  const stale = await run('apply', planFile);
  expect(stale.code).toBe(1);
  expect(stale.stderr).toContain('saved plan is stale');
  expect(stale.stderr).not.toMatch(/\n\s+at /);

  expect((await run('plan', '--out', planFile)).code).toBe(0);
  const fresh = await run('apply', planFile);
  expect(fresh.code).toBe(0);
  expect(fresh.stdout).toContain('Apply complete!');
});

test('a saved plan of a fleet never applied applies once; the same file again is stale', async () => {
  synth();
  const planFile = path.join(dir, 'first.plan');
  expect((await run('plan', '--out', planFile)).code).toBe(0);
  const first = await run('apply', planFile);
  expect(first.stderr).toBe('');
  expect(first.stdout).toContain('Apply complete! Resources: 3 added, 0 changed, 0 destroyed.');
  expect((await machinePart('picker-1')).config.components).toHaveLength(2);

  const again = await run('apply', planFile);
  expect(again.code).toBe(1);
  expect(again.stderr).toContain('saved plan is stale');
  expect((await run('plan', '--detailed-exitcode')).code).toBe(0);
});

test('apply without a terminal and without --auto-approve refuses, changing nothing', async () => {
  await applied({ timeoutMs: 300, policy: '^1', token: 'token-two' });
  synth({ timeoutMs: 400, policy: '^1', token: 'token-two' });
  const refused = await run('apply');
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/needs confirmation.*\n.*--auto-approve/);
  const part = await machinePart('picker-1');
  const sensor = (part.config.components as Array<{ name: string; attributes?: { timeout_ms?: number } }>).find(
    (c) => c.name === 'ultrasonic-1',
  );
  expect(sensor?.attributes?.timeout_ms).toBe(300);
});

test('while the state is locked, a second apply fails naming the holder; force-unlock releases it', async () => {
  synth();
  const state = backend();
  const held = await state.lock('fleet', 'apply', { timeoutMs: 0 });
  const blocked = await run('apply', '--auto-approve');
  expect(blocked.code).toBe(1);
  expect(blocked.stderr).toContain(`fleetform force-unlock ${held.info.id}`);
  const waiting = startFleetform(dir, ['apply', '--auto-approve', '--lock-timeout', '20s', '--synth-out', p.outdir], env);
  await waiting.stderrShows('waiting up to 20s for the state lock of stack fleet');
  const unlocked = await fleetform(dir, ['force-unlock', held.info.id], env);
  expect(unlocked.code).toBe(0);
  const result = await waiting.result;
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('Apply complete!');
});
