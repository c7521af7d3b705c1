/**
 * A rollout whose canary fails on a commit is not tried again at every cycle of that
 * commit: the stack waits for a retry (`approve`) or a new commit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { FleetProvider, Machine, ModularResource, Module, Rollout } from '../../src';
import { createServiceClient, type ServiceClient } from '../../src/api/client';
import { EmulatorService } from '../../src/api/emulator-control';
import { startEmulator } from '../../src/emulator';
import { readStacks } from '../../src/engine/desired/read-stacks';
import { Engine } from '../../src/engine/engine';
import { defaultKinds } from '../../src/engine/kinds';
import { LocalStateBackend } from '../../src/engine/state/local-backend';
import type { ReconcilerEvent } from '../../src/reconciler/events';
import { Reconciler } from '../../src/reconciler/reconciler';
import { quickMachines } from '../e2e/fleet-fixture';

jest.setTimeout(180_000);

let dir: string;
let restoreEnv: () => void;
let emulator: Awaited<ReturnType<typeof startEmulator>>;
let client: ServiceClient;

beforeAll(async () => {
  restoreEnv = quickMachines();
  dir = mkdtempSync(path.join(tmpdir(), 'ff-reconcile-stopped-'));
  emulator = await startEmulator({ dataDir: path.join(dir, 'emulator'), port: 0 });
  const { apiKey, apiKeyId } = emulator.credentials;
  client = await createServiceClient({
    serviceHost: emulator.url,
    credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey },
  });
});

afterAll(async () => {
  client?.close();
  await emulator?.close();
  restoreEnv?.();
  rmSync(dir, { recursive: true, force: true });
});

/** Two machines running acme:sensors at `policy`, rolled out to a canary first. */
function synth(outdir: string, policy: string): void {
  const app = new App({ outdir });
  const stack = new TerraformStack(app, 'fleet');
  new FleetProvider(stack, 'cloud', {});
  const machines = ['picker-1', 'picker-2'].map((name) => {
    const m = new Machine(stack, name, { name });
    const sensors = new Module(m, 'sensors', { moduleId: 'acme:sensors', version: policy });
    new ModularResource(m, 'board', { name: 'board-1', api: 'rdk:component:board', model: sensors.model('pi-board') });
    return m;
  });
  new Rollout(stack, 'careful', {
    waves: [{ machines: [machines[0] as Machine] }, { fraction: 1 }],
    gate: { timeout: '20s', settle: '100ms' },
    abort: { maxFailed: 0 },
  });
  app.synth();
}

test('a rollout stopped at its canary waits for a retry or a new commit, not the next cycle', async () => {
  const { organizationId, locationId } = emulator.credentials;
  const kinds = defaultKinds();
  const backend = new LocalStateBackend(path.join(dir, 'state'));
  const engine = new Engine({ client, backend, kinds, parallelism: 4, lockTimeoutMs: 5000, defaults: { organizationId, locationId } });
  let revision = 'r1';
  synth(path.join(dir, revision), '~1.2');
  const reconciler = new Reconciler({
    source: {
      description: dir,
      fetch: () => Promise.resolve({ dir: path.join(dir, revision), id: revision }),
      hasNew: (than) => Promise.resolve(than !== revision),
    },
    loader: {
      load: async (d) => ({ stacks: await readStacks(d), engine, readers: { kinds }, lead: () => Promise.resolve(async () => undefined) }),
      close: async () => undefined,
    },
    apply: 'auto',
    drift: 'warn',
    windows: [],
    intervalMs: 300,
    pollMs: 20,
    maxDestroy: 0,
    logger: { log: () => undefined },
  });
  const events: ReconcilerEvent[] = [];
  const waiters: Array<{ match: (e: ReconcilerEvent) => boolean; resolve: () => void }> = [];
  reconciler.subscribe((e) => {
    events.push(e);
    for (const w of [...waiters])
      if (w.match(e)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
  });
  const next = (match: (e: ReconcilerEvent) => boolean, timeoutMs = 90_000): Promise<void> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no matching event in ${timeoutMs} ms; got ${events.map((e) => e.type).join(', ')}`)),
        timeoutMs,
      );
      waiters.push({ match, resolve: () => (clearTimeout(timer), resolve()) });
    });
  const since = (mark: number, type: ReconcilerEvent['type']): ReconcilerEvent[] => events.slice(mark).filter((e) => e.type === type);
  try {
    let done = next((e) => e.type === 'apply-finished');
    reconciler.start();
    await done;

    // 1.3.0 crashes on start: the canary fails its gate and the rollout stops.
    await client.clientFor(EmulatorService).setMachineFaults({ specs: ['module=acme:sensors@1.3.0:crash'] });
    let mark = events.length;
    synth(path.join(dir, 'r2'), '~1.3');
    const stopped = next((e) => e.type === 'rollout-stopped');
    revision = 'r2';
    await stopped;
    // Cycles of the same commit go on without applying it again.
    for (let i = 0; i < 3; i++) await next((e) => e.type === 'cycle-finished');
    expect(since(mark, 'apply-started')).toHaveLength(1);
    expect(since(mark, 'apply-waiting')).toEqual([
      expect.objectContaining({
        stack: 'fleet',
        reason: expect.stringMatching(/rollout careful stopped at wave 1 on this commit.*fleetform reconcile approve fleet/),
      }),
    ]);
    expect(reconciler.status().stacks[0]?.waiting?.for).toBe('retry');

    // A retry by hand applies it once more (and it stops again).
    mark = events.length;
    const again = next((e) => e.type === 'rollout-stopped');
    expect(reconciler.approve('fleet')).toBe(true);
    await again;
    for (let i = 0; i < 2; i++) await next((e) => e.type === 'cycle-finished');
    expect(since(mark, 'apply-started')).toHaveLength(1);

    // A new commit is applied at once.
    await client.clientFor(EmulatorService).setMachineFaults({ specs: [] });
    mark = events.length;
    synth(path.join(dir, 'r3'), '~1.3');
    done = next((e) => e.type === 'apply-finished');
    revision = 'r3';
    await done;
    expect(since(mark, 'rollout-stopped')).toEqual([]);
    expect(since(mark, 'wave-passed').map((e) => 'wave' in e && e.wave)).toEqual([1, 2]);
    expect(reconciler.status().stacks[0]?.waiting).toBeUndefined();
  } finally {
    await reconciler.stop();
  }
});
