import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createServiceClient, type ServiceClient } from '../../src/api/client';
import { loadSdk } from '../../src/api/sdk';
import { startEmulator } from '../../src/emulator';
import type { ReconcilerEvent } from '../../src/reconciler/events';
import type { ReconcilerStatus } from '../../src/reconciler/events';
import { fleetform, quickMachines } from '../e2e/fleet-fixture';
import { gitProject, startReconcile, webhookReceiver, type ReconcileProcess } from './fixture';

jest.setTimeout(240_000);

const MACHINES = 4;
let dir: string;
let restoreEnv: () => void;
let emulator: Awaited<ReturnType<typeof startEmulator>>;
let client: ServiceClient;
let env: NodeJS.ProcessEnv;
let hook: Awaited<ReturnType<typeof webhookReceiver>>;
let running: ReconcileProcess | undefined;

beforeAll(async () => {
  restoreEnv = quickMachines();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-reconcile-git-'));
  emulator = await startEmulator({ dataDir: path.join(dir, 'emulator'), port: 0 });
  const { apiKey, apiKeyId } = emulator.credentials;
  env = { ...process.env, FLEETFORM_ENDPOINT: emulator.url, FLEETFORM_API_KEY: apiKey, FLEETFORM_API_KEY_ID: apiKeyId };
  client = await createServiceClient({
    serviceHost: emulator.url,
    credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey },
  });
  hook = await webhookReceiver();
});

afterAll(async () => {
  await running?.stop();
  await hook?.close();
  client?.close();
  await emulator?.close();
  restoreEnv?.();
  await fs.rm(dir, { recursive: true, force: true });
});

async function machineConfig(name: string): Promise<Record<string, unknown>> {
  const machine = (await client.appClient.listMachines(emulator.credentials.locationId)).find((m) => m.name === name);
  if (!machine) throw new Error(`no machine ${name}`);
  const parts = await client.appClient.getMachineParts(machine.id);
  return (parts.find((p) => p.mainPart) ?? parts[0])?.config as Record<string, unknown>;
}

function moduleVersion(config: Record<string, unknown>): unknown {
  return (config.modules as Array<{ version?: string }> | undefined)?.[0]?.version;
}

/** Resolves once `check` holds, polling every 50 ms; fails after `ms`. */
async function until(check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const of =
  <T extends ReconcilerEvent['type']>(type: T, stack = 'fleet') =>
  (e: ReconcilerEvent): e is Extract<ReconcilerEvent, { type: T }> =>
    e.type === type && (!('stack' in e) || e.stack === stack);

/** Edits picker-2's ultrasonic timeout with the official SDK, outside fleetform. */
async function driftWithSdk(timeout: number): Promise<void> {
  const sdk = await loadSdk();
  const official = await sdk.createViamClient({
    serviceHost: emulator.url,
    credentials: { type: 'api-key', authEntity: emulator.credentials.apiKeyId, payload: emulator.credentials.apiKey },
  });
  const machine = (await client.appClient.listMachines(emulator.credentials.locationId)).find((m) => m.name === 'picker-2');
  const parts = await official.appClient.getRobotParts(machine?.id as string);
  const part = parts.find((p) => p.mainPart) ?? parts[0];
  const config = JSON.parse(JSON.stringify(part?.robotConfig?.toJson())) as {
    components: Array<{ name: string; attributes?: Record<string, unknown> }>;
  };
  const ultrasonic = config.components.find((c) => c.name === 'ultrasonic-1');
  if (!ultrasonic?.attributes) throw new Error('no ultrasonic-1');
  ultrasonic.attributes.timeout_ms = timeout;
  await official.appClient.updateRobotPart(part?.id as string, part?.name as string, sdk.Struct.fromJson(config as never));
}

async function timeoutOf(name: string): Promise<unknown> {
  const c = (await machineConfig(name)).components as Array<{ name: string; attributes?: Record<string, unknown> }>;
  return c.find((x) => x.name === 'ultrasonic-1')?.attributes?.timeout_ms;
}

test('commits reach every machine through a two-wave rollout; drift is reported in warn and healed in heal; a commit in a deny window waits for it; the webhook gets each event', async () => {
  const project = gitProject(path.join(dir, 'repo'));
  project.commit({ machines: MACHINES, policy: '~1.2' }, 'a fleet of four');
  running = await startReconcile(
    dir,
    [
      '--repo',
      project.repo,
      '--branch',
      'main',
      '--path',
      'fleet',
      '--workdir',
      path.join(dir, 'checkout'),
      '--apply',
      'auto',
      '--drift',
      'warn',
      '--interval',
      '3s',
      '--poll',
      '100ms',
      '--webhook',
      hook.url,
    ],
    env,
  );
  const url = running.url;
  const status = async (): Promise<ReconcilerStatus> => (await (await fetch(`${url}/api/status`)).json()) as ReconcilerStatus;

  // The first commit creates the fleet.
  const created = (await hook.waitFor(of('apply-finished'), 0, 20_000)) as Extract<ReconcilerEvent, { type: 'apply-finished' }>;
  expect(created.failed).toEqual([]);
  expect(created.applied).toBeGreaterThanOrEqual(MACHINES);
  expect(moduleVersion(await machineConfig('picker-4'))).toBe('~1.2');

  // A new commit goes through the rollout: the canary wave, then the rest.
  let mark = hook.events.length;
  const second = project.commit({ machines: MACHINES, policy: '~1.3' }, 'sensors 1.3');
  await hook.waitFor((e) => of('apply-started')(e) && e.cycle > 0, mark);
  const wave1 = await hook.waitFor((e) => of('wave-passed')(e) && e.wave === 1, mark);
  const wave2 = await hook.waitFor((e) => of('wave-passed')(e) && e.wave === 2, mark);
  expect([wave1.type, wave2.type]).toEqual(['wave-passed', 'wave-passed']);
  const finished = (await hook.waitFor(of('apply-finished'), mark)) as Extract<ReconcilerEvent, { type: 'apply-finished' }>;
  expect(finished.failed).toEqual([]);
  for (let i = 1; i <= MACHINES; i++) expect(moduleVersion(await machineConfig(`picker-${i}`))).toBe('~1.3');
  expect((await status()).commit).toBe(second);

  // Drift made with the official SDK is reported, not healed, in warn.
  mark = hook.events.length;
  await driftWithSdk(999);
  const found = (await hook.waitFor(of('drift-found'), mark)) as Extract<ReconcilerEvent, { type: 'drift-found' }>;
  expect(found.objects).toEqual(['fleetform_machine.picker-2']);
  expect(found.policy).toBe('warn');
  // A later cycle leaves it too.
  await until(async () => {
    const st = await status();
    return st.cycle > found.cycle && st.state === 'idle';
  });
  expect(await timeoutOf('picker-2')).toBe(999);
  // The status and metrics say so.
  expect((await status()).stacks.find((s) => s.stack === 'fleet')?.drifted).toEqual(['fleetform_machine.picker-2']);
  const metrics = await (await fetch(`${url}/metrics`)).text();
  expect(metrics).toMatch(/fleetform_reconcile_drifted_objects\{stack="fleet"\} 1/);
  expect((await fetch(`${url}/healthz`)).status).toBe(200);

  // The stack's own policy, committed, heals it within one interval.
  mark = hook.events.length;
  project.commit({ machines: MACHINES, policy: '~1.3', reconcile: { drift: 'heal' } }, 'heal drift');
  const healed = (await hook.waitFor(of('drift-healed'), mark)) as Extract<ReconcilerEvent, { type: 'drift-healed' }>;
  expect(healed.objects).toEqual(['fleetform_machine.picker-2']);
  expect(await timeoutOf('picker-2')).toBe(150);

  // A commit inside a deny window waits for it to close, then applies.
  const now = Date.now();
  const minute = new Date(now);
  const opened = Date.UTC(minute.getUTCFullYear(), minute.getUTCMonth(), minute.getUTCDate(), minute.getUTCHours(), minute.getUTCMinutes());
  const endsIn = 15_000;
  const deny = `deny:${minute.getUTCMinutes()} ${minute.getUTCHours()} * * *:${now + endsIn - opened}ms:UTC`;
  mark = hook.events.length;
  project.commit(
    { machines: MACHINES, policy: '~1.2', reconcile: { drift: 'heal', windows: [deny] } },
    'sensors back to 1.2, in a deny window',
  );
  const waiting = (await hook.waitFor(of('apply-waiting'), mark)) as Extract<ReconcilerEvent, { type: 'apply-waiting' }>;
  expect(waiting.reason).toContain('deny window');
  expect(Date.now()).toBeLessThan(now + endsIn);
  expect(moduleVersion(await machineConfig('picker-1'))).toBe('~1.3');
  const started = await hook.waitFor(of('apply-started'), mark);
  expect(Date.parse(started.at)).toBeGreaterThanOrEqual(now + endsIn - 50);
  await hook.waitFor(of('apply-finished'), mark);
  for (let i = 1; i <= MACHINES; i++) expect(moduleVersion(await machineConfig(`picker-${i}`))).toBe('~1.2');

  // A commit destroying more than --max-destroy (0) waits for an approval, whatever the policy; the command gives it.
  mark = hook.events.length;
  project.commit({ machines: MACHINES - 1, policy: '~1.2', reconcile: { drift: 'heal' } }, 'one machine fewer');
  const asked = (await hook.waitFor(of('approval-needed'), mark)) as Extract<ReconcilerEvent, { type: 'approval-needed' }>;
  expect(asked).toMatchObject({ destroy: 1, reason: 'it destroys 1 object(s), more than --max-destroy 0' });
  expect((await status()).stacks[0]?.waiting?.for).toBe('approval');
  expect((await client.appClient.listMachines(emulator.credentials.locationId)).length).toBe(MACHINES);
  const approved = await fleetform(dir, ['reconcile', 'approve', 'fleet', '--server', url], env as Record<string, string>);
  expect(approved).toMatchObject({ code: 0, stdout: 'Approved: stack fleet is applied now.\n' });
  await hook.waitFor(of('apply-finished'), mark);
  expect((await client.appClient.listMachines(emulator.credentials.locationId)).map((m) => m.name).sort()).toEqual([
    'picker-1',
    'picker-2',
    'picker-3',
  ]);
  const shown = await fleetform(dir, ['reconcile', 'status', '--server', url], env as Record<string, string>);
  expect(shown.stdout).toMatch(/^Reconciler: (idle|cycling) \(leader\), cycle \d+, commit [0-9a-f]{12}/);
  expect(shown.stdout).toContain('stack fleet (apply auto, drift heal)');

  // A broken commit leaves the fleet as it is and is announced once.
  mark = hook.events.length;
  const broken = project.commit(
    { machines: MACHINES - 1, policy: '~1.2', network: { bind_address: 'nowhere' }, reconcile: { drift: 'heal' } },
    'a bind address the machine server refuses',
  );
  const failed = (await hook.waitFor(of('cycle-failed'), mark)) as Extract<ReconcilerEvent, { type: 'cycle-failed' }>;
  expect(failed.commit).toBe(broken);
  expect(failed.error).toContain('bind_address');
  expect((await client.appClient.listMachines(emulator.credentials.locationId)).length).toBe(MACHINES - 1);

  // Nothing in the log or the events holds the webhook's URL.
  expect(running.log()).not.toContain(hook.url);
  expect(JSON.stringify(hook.events)).not.toContain(hook.url);
  expect(hook.events.map((e) => e.type)).toEqual(
    expect.arrayContaining(['apply-started', 'apply-finished', 'wave-passed', 'drift-found', 'drift-healed', 'apply-waiting', 'leader']),
  );
});
