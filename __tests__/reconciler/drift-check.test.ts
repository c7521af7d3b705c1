/**
 * Interval cycles of an unchanged commit read versions only: no plan while nothing changed
 * on the service, a full plan (which reports the drift) as soon as a part's version moves.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { Component, FleetProvider, Machine } from '../../src';
import { createServiceClient, type ServiceClient } from '../../src/api/client';
import { startEmulator } from '../../src/emulator';
import { readStacks } from '../../src/engine/desired/read-stacks';
import { Engine } from '../../src/engine/engine';
import { defaultKinds } from '../../src/engine/kinds';
import { LocalStateBackend } from '../../src/engine/state/local-backend';
import type { ReconcilerEvent } from '../../src/reconciler/events';
import { Reconciler } from '../../src/reconciler/reconciler';

jest.setTimeout(120_000);

let dir: string;
let emulator: Awaited<ReturnType<typeof startEmulator>>;
let client: ServiceClient;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'ff-reconcile-check-'));
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
  rmSync(dir, { recursive: true, force: true });
});

function synth(outdir: string): void {
  const app = new App({ outdir });
  const stack = new TerraformStack(app, 'fleet');
  new FleetProvider(stack, 'cloud', {});
  for (const name of ['arm-1', 'arm-2', 'arm-3'])
    new Component(new Machine(stack, name, { name }), 'cam', { type: 'camera', model: 'fake' });
  app.synth();
}

/** Events, and waiting for one with a deadline. */
function recorder(r: Reconciler): {
  events: ReconcilerEvent[];
  next(match: (e: ReconcilerEvent) => boolean, timeoutMs?: number): Promise<ReconcilerEvent>;
} {
  const events: ReconcilerEvent[] = [];
  const waiters: Array<{ match: (e: ReconcilerEvent) => boolean; resolve: (e: ReconcilerEvent) => void }> = [];
  r.subscribe((e) => {
    events.push(e);
    for (const w of [...waiters])
      if (w.match(e)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(e);
      }
  });
  return {
    events,
    next: (match, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no matching event in ${timeoutMs} ms; got ${events.map((e) => e.type).join(', ')}`)),
          timeoutMs,
        );
        waiters.push({ match, resolve: (e) => (clearTimeout(timer), resolve(e)) });
      }),
  };
}

test('an unchanged fleet is checked by versions without planning; a part edited on the service is planned and reported', async () => {
  const outdir = path.join(dir, 'cdktf.out');
  synth(outdir);
  const { organizationId, locationId } = emulator.credentials;
  const kinds = defaultKinds();
  const backend = new LocalStateBackend(path.join(dir, 'state'));
  const engine = new Engine({ client, backend, kinds, parallelism: 4, lockTimeoutMs: 5000, defaults: { organizationId, locationId } });
  const plans = jest.spyOn(engine, 'plan');
  const reconciler = new Reconciler({
    source: { description: outdir, fetch: () => Promise.resolve({ dir: outdir, id: 'r1' }), hasNew: () => Promise.resolve(false) },
    loader: {
      load: async () => ({
        stacks: await readStacks(outdir),
        engine,
        readers: { kinds },
        lead: () => Promise.resolve(async () => undefined),
      }),
      close: async () => undefined,
    },
    apply: 'auto',
    drift: 'warn',
    windows: [],
    intervalMs: 400,
    pollMs: 20,
    maxDestroy: 0,
    logger: { log: () => undefined },
  });
  const { events, next } = recorder(reconciler);
  const cycleDone = (): Promise<ReconcilerEvent> => next((e) => e.type === 'cycle-finished' || e.type === 'cycle-failed');
  try {
    const applied = next((e) => e.type === 'apply-finished');
    reconciler.start();
    await applied;
    // The cycle after the apply plans in full (the state moved); the ones after it read versions only.
    await cycleDone();
    await cycleDone();
    const planned = plans.mock.calls.length;
    for (let i = 0; i < 3; i++) expect(await cycleDone()).toMatchObject({ type: 'cycle-finished', changes: 0, drifted: 0 });
    expect(plans.mock.calls.length).toBe(planned);

    const machine = (await client.appClient.listMachines(locationId)).find((m) => m.name === 'arm-2');
    const part = (await client.appClient.getMachineParts(machine?.id ?? ''))[0];
    if (!part) throw new Error('arm-2 has no part');
    const found = next((e) => e.type === 'drift-found');
    await client.appClient.updateMachinePart(part.id, part.name, { ...part.config, components: [] }, part.lastUpdated);
    expect(await found).toMatchObject({ stack: 'fleet', objects: ['fleetform_machine.arm-2'], policy: 'warn' });
    expect(plans.mock.calls.length).toBe(planned + 1);
    // The drift is reported once; the checks after it read versions only again.
    await cycleDone();
    await cycleDone();
    expect(plans.mock.calls.length).toBe(planned + 1);
    expect(events.filter((e) => e.type === 'drift-found')).toHaveLength(1);
  } finally {
    await reconciler.stop();
  }
});
