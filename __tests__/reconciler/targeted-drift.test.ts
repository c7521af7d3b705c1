/**
 * A drift the interval's check finds is planned alone (a targeted plan of the objects whose
 * versions moved) and reported or healed in the same cycle: in warn the report keeps the
 * earlier drift and drops one reverted on the service; in heal the targeted plan is applied.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { Component, FleetProvider, Machine } from '../../src';
import { createServiceClient, type ServiceClient } from '../../src/api/client';
import type { MachinePart } from '../../src/api/client/types';
import { loadSdk, type Sdk } from '../../src/api/sdk';
import { startEmulator } from '../../src/emulator';
import { readStacks } from '../../src/engine/desired/read-stacks';
import { Engine } from '../../src/engine/engine';
import { defaultKinds } from '../../src/engine/kinds';
import type { Plan } from '../../src/engine/plan/model';
import { LocalStateBackend } from '../../src/engine/state/local-backend';
import type { ReconcilerEvent } from '../../src/reconciler/events';
import { Reconciler } from '../../src/reconciler/reconciler';

jest.setTimeout(120_000);

let dir: string;
let emulator: Awaited<ReturnType<typeof startEmulator>>;
let client: ServiceClient;
let sdk: Sdk;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'ff-reconcile-targeted-'));
  emulator = await startEmulator({ dataDir: path.join(dir, 'emulator'), port: 0 });
  const { apiKey, apiKeyId } = emulator.credentials;
  client = await createServiceClient({
    serviceHost: emulator.url,
    credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey },
  });
  sdk = await loadSdk();
});

afterAll(async () => {
  client?.close();
  await emulator?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** One engine.plan call as the reconciler made it: the addresses it targeted, what it planned and the service calls it made. */
interface PlanCall {
  readonly targets: readonly string[] | undefined;
  readonly planned: readonly string[];
  readonly calls: Readonly<Record<string, number>>;
}

interface Fleet {
  readonly reconciler: Reconciler;
  readonly backend: LocalStateBackend;
  readonly plans: PlanCall[];
  readonly events: ReconcilerEvent[];
  next(match: (e: ReconcilerEvent) => boolean, timeoutMs?: number): Promise<ReconcilerEvent>;
  cycleDone(): Promise<ReconcilerEvent>;
}

/** Three machines named `${prefix}-1..3`, reconciled every 400 ms with `drift`; each plan's service calls counted. */
async function fleet(prefix: string, drift: 'warn' | 'heal'): Promise<Fleet> {
  mkdirSync(path.join(dir, prefix), { recursive: true });
  const outdir = path.join(dir, prefix, 'cdktf.out');
  const app = new App({ outdir });
  const stack = new TerraformStack(app, 'fleet');
  new FleetProvider(stack, 'cloud', {});
  for (const i of [1, 2, 3]) {
    const name = `${prefix}-${i}`;
    new Component(new Machine(stack, name, { name }), 'cam', { type: 'camera', model: 'fake' });
  }
  app.synth();
  const { organizationId, locationId } = emulator.credentials;
  const kinds = defaultKinds();
  const backend = new LocalStateBackend(path.join(dir, prefix, 'state'));
  const engine = new Engine({ client, backend, kinds, parallelism: 4, lockTimeoutMs: 5000, defaults: { organizationId, locationId } });
  const plans: PlanCall[] = [];
  const plan = engine.plan.bind(engine);
  // Every plan runs as it would; only its service calls are counted (nothing else calls the emulator while it runs).
  jest.spyOn(engine, 'plan').mockImplementation(async (stacks, options) => {
    emulator.resetCalls();
    const result = await plan(stacks, options);
    plans.push({ targets: options.targets, planned: plannedAddresses(result.plan), calls: emulator.calls() });
    return result;
  });
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
    drift,
    windows: [],
    intervalMs: 400,
    pollMs: 20,
    maxDestroy: 0,
    logger: { log: () => undefined },
  });
  const events: ReconcilerEvent[] = [];
  const waiters: Array<{ match: (e: ReconcilerEvent) => boolean; resolve: (e: ReconcilerEvent) => void }> = [];
  reconciler.subscribe((e) => {
    events.push(e);
    for (const w of [...waiters])
      if (w.match(e)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(e);
      }
  });
  const next = (match: (e: ReconcilerEvent) => boolean, timeoutMs = 30_000): Promise<ReconcilerEvent> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no matching event in ${timeoutMs} ms; got ${events.map((e) => e.type).join(', ')}`)),
        timeoutMs,
      );
      waiters.push({ match, resolve: (e) => (clearTimeout(timer), resolve(e)) });
    });
  return {
    reconciler,
    backend,
    plans,
    events,
    next,
    cycleDone: () => next((e) => e.type === 'cycle-finished' || e.type === 'cycle-failed'),
  };
}

function plannedAddresses(plan: Plan): string[] {
  return plan.changes.map((c) => c.address).sort();
}

/** The machine's part, as the service has it. */
async function partOf(name: string): Promise<MachinePart> {
  const machine = (await client.appClient.listMachines(emulator.credentials.locationId)).find((m) => m.name === name);
  const part = (await client.appClient.getMachineParts(machine?.id ?? ''))[0];
  if (!part) throw new Error(`${name} has no part`);
  return part;
}

/** Writes a part's config with the official SDK, as a person editing the machine outside fleetform would. */
async function editWithSdk(name: string, config: Record<string, unknown>): Promise<void> {
  const part = await partOf(name);
  const { apiKey, apiKeyId } = emulator.credentials;
  const viam = await sdk.createViamClient({
    serviceHost: emulator.url,
    credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey },
  });
  await viam.appClient.updateRobotPart(part.id, part.name, sdk.Struct.fromJson(config as never));
}

/** Waits until the fleet's checks read versions only again (two cycles finished without a plan). */
async function settled(f: Fleet): Promise<void> {
  const planned = f.plans.length;
  await f.cycleDone();
  await f.cycleDone();
  expect(f.plans).toHaveLength(planned);
}

test('warn: a drift found by the check is reported by a plan of that machine alone; the report keeps earlier drift and drops a reverted one', async () => {
  const f = await fleet('warn-arm', 'warn');
  try {
    const applied = f.next((e) => e.type === 'apply-finished');
    f.reconciler.start();
    await applied;
    // The apply's cycle ends, the cycle after it plans in full (the state moved); the ones after it read versions only.
    await f.cycleDone();
    await f.cycleDone();
    await settled(f);
    const full = f.plans[f.plans.length - 1] as PlanCall;
    expect(full.targets).toBeUndefined();
    expect(full.planned).toEqual(['fleetform_machine.warn-arm-1', 'fleetform_machine.warn-arm-2', 'fleetform_machine.warn-arm-3']);

    const original = (await partOf('warn-arm-2')).config;
    let found = f.next((e) => e.type === 'drift-found');
    await editWithSdk('warn-arm-2', { ...original, components: [] });
    expect(await found).toMatchObject({ stack: 'fleet', objects: ['fleetform_machine.warn-arm-2'], policy: 'warn' });
    const targeted = f.plans[f.plans.length - 1] as PlanCall;
    expect(targeted.targets).toEqual(['fleetform_machine.warn-arm-2']);
    expect(targeted.planned).toEqual(['fleetform_machine.warn-arm-2']);
    // One machine of three read (the full plan read each).
    expect(full.calls.GetRobotPart).toBe(3);
    expect(targeted.calls.GetRobotPart).toBe(1);
    expect(f.reconciler.status().stacks[0]).toMatchObject({ drifted: ['fleetform_machine.warn-arm-2'], changes: 1 });
    // The baseline took the new version: the checks after it say nothing moved, and plan nothing.
    await settled(f);

    found = f.next((e) => e.type === 'drift-found');
    await editWithSdk('warn-arm-3', { ...original, components: [] });
    expect(await found).toMatchObject({ objects: ['fleetform_machine.warn-arm-2', 'fleetform_machine.warn-arm-3'] });
    expect(f.plans[f.plans.length - 1]?.planned).toEqual(['fleetform_machine.warn-arm-3']);
    expect(f.reconciler.status().stacks[0]).toMatchObject({ changes: 2 });
    await settled(f);

    // Reverted on the service: the drift leaves the report, the other stays.
    found = f.next((e) => e.type === 'drift-found');
    const finished = f.next((e) => e.type === 'cycle-finished' && e.drifted === 1);
    await editWithSdk('warn-arm-2', original);
    expect(await finished).toMatchObject({ changes: 1, drifted: 1 });
    expect(f.plans[f.plans.length - 1]?.planned).toEqual(['fleetform_machine.warn-arm-2']);
    expect(f.reconciler.status().stacks[0]).toMatchObject({ drifted: ['fleetform_machine.warn-arm-3'], changes: 1 });
    expect(await found).toMatchObject({ objects: ['fleetform_machine.warn-arm-3'] });
    expect(f.events.filter((e) => e.type === 'apply-started')).toHaveLength(1);
  } finally {
    await f.reconciler.stop();
  }
});

test('heal: a drift found by the check is healed by applying the plan of that machine alone; the next cycle plans in full', async () => {
  const f = await fleet('heal-arm', 'heal');
  try {
    const applied = f.next((e) => e.type === 'apply-finished');
    f.reconciler.start();
    await applied;
    await f.cycleDone();
    await f.cycleDone();
    await settled(f);

    const original = (await partOf('heal-arm-1')).config;
    const healed = f.next((e) => e.type === 'drift-healed');
    await editWithSdk('heal-arm-1', { ...original, components: [] });
    expect(await healed).toMatchObject({ stack: 'fleet', objects: ['fleetform_machine.heal-arm-1'] });
    const targeted = f.plans[f.plans.length - 1] as PlanCall;
    expect(targeted).toMatchObject({ targets: ['fleetform_machine.heal-arm-1'], planned: ['fleetform_machine.heal-arm-1'] });
    expect(f.events.filter((e) => e.type === 'apply-started').pop()).toMatchObject({ changes: 1, heal: true });
    expect((await partOf('heal-arm-1')).config).toMatchObject({ components: (original as { components: unknown }).components });

    // After the write the next cycle plans every machine again.
    const planned = f.plans.length;
    await f.cycleDone();
    await f.cycleDone();
    expect(f.plans[planned]).toMatchObject({ targets: undefined, planned: expect.arrayContaining(['fleetform_machine.heal-arm-2']) });
  } finally {
    await f.reconciler.stop();
  }
});

test('a state written since the last full plan makes the cycle plan in full after the targeted plan', async () => {
  const f = await fleet('written-arm', 'warn');
  try {
    const applied = f.next((e) => e.type === 'apply-finished');
    f.reconciler.start();
    await applied;
    await f.cycleDone();
    await f.cycleDone();
    await settled(f);

    // Another run writes the state (here: its serial only) while the reconciler waits.
    const release = await f.backend.lock('fleet', 'test', { timeoutMs: 10_000 });
    const state = await f.backend.read('fleet');
    state.serial += 1;
    await f.backend.write(state);
    await release.release();
    const planned = f.plans.length;
    const found = f.next((e) => e.type === 'drift-found');
    await editWithSdk('written-arm-3', { ...(await partOf('written-arm-3')).config, components: [] });
    expect(await found).toMatchObject({ objects: ['fleetform_machine.written-arm-3'] });
    expect(f.plans.slice(planned).map((p) => p.targets)).toEqual([['fleetform_machine.written-arm-3'], undefined]);
  } finally {
    await f.reconciler.stop();
  }
});
