/**
 * A drift the interval's check finds is planned alone (a targeted plan of the objects whose
 * versions moved) and reported or healed in the same cycle: in warn the report keeps the
 * earlier drift and drops one reverted on the service; in heal the targeted plan is applied.
 */
import * as path from 'node:path';
import type { MachinePart } from '../../src/api/client/types';
import type { Plan } from '../../src/engine/plan-model';
import type { LocalStateBackend } from '../../src/engine/state/local-backend';
import type { ReconcilerEvent } from '../../src/reconciler/events';
import type { Reconciler } from '../../src/reconciler/reconciler';
import { editWithSdk, fixedSource, freshLocation, inProcessReconciler, partNamed, suiteEmulator, synthCameras } from './fixture';

jest.setTimeout(120_000);

const suite = suiteEmulator('ff-reconcile-targeted-');

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
  readonly events: readonly ReconcilerEvent[];
  next(match: (e: ReconcilerEvent) => boolean, timeoutMs?: number): Promise<ReconcilerEvent>;
  cycleDone(): Promise<ReconcilerEvent>;
  /** The part of the machine named `name`, as the service has it. */
  partOf(name: string): Promise<MachinePart>;
  /** Writes the machine's config with the official SDK, as a person editing it outside fleetform would. */
  edit(name: string, config: Record<string, unknown>): Promise<void>;
}

/** Three machines named `${prefix}-1..3` in a location of their own, reconciled every 250 ms with `drift`; each plan's service calls counted. */
async function fleet(prefix: string, drift: 'warn' | 'heal'): Promise<Fleet> {
  const outdir = path.join(suite.dir, prefix, 'cdktf.out');
  synthCameras(
    outdir,
    [1, 2, 3].map((i) => `${prefix}-${i}`),
  );
  const locationId = await freshLocation(suite, prefix);
  const { reconciler, engine, backend, log, next, cycleDone } = inProcessReconciler({
    suite,
    source: fixedSource(outdir),
    stateDir: path.join(suite.dir, prefix, 'state'),
    locationId,
    drift,
    intervalMs: 250,
  });
  const plans: PlanCall[] = [];
  const plan = engine.plan.bind(engine);
  // Every plan runs as it would; only its service calls are counted (nothing else calls the emulator while it runs).
  jest.spyOn(engine, 'plan').mockImplementation(async (stacks, options) => {
    suite.emulator.resetCalls();
    const result = await plan(stacks, options);
    plans.push({ targets: options.targets, planned: plannedAddresses(result.plan), calls: suite.emulator.calls() });
    return result;
  });
  const partOf = (name: string): Promise<MachinePart> => partNamed(suite.client, locationId, name);
  return {
    reconciler,
    backend,
    plans,
    events: log.events,
    next,
    cycleDone,
    partOf,
    edit: async (name, config) => editWithSdk(suite, (await partOf(name)).machineId, () => config),
  };
}

function plannedAddresses(plan: Plan): string[] {
  return plan.changes.map((c) => c.address).sort();
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

    const original = (await f.partOf('warn-arm-2')).config;
    let found = f.next((e) => e.type === 'drift-found');
    await f.edit('warn-arm-2', { ...original, components: [] });
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
    await f.edit('warn-arm-3', { ...original, components: [] });
    expect(await found).toMatchObject({ objects: ['fleetform_machine.warn-arm-2', 'fleetform_machine.warn-arm-3'] });
    expect(f.plans[f.plans.length - 1]?.planned).toEqual(['fleetform_machine.warn-arm-3']);
    expect(f.reconciler.status().stacks[0]).toMatchObject({ changes: 2 });
    await settled(f);

    // Reverted on the service: the drift leaves the report, the other stays.
    found = f.next((e) => e.type === 'drift-found');
    const finished = f.next((e) => e.type === 'cycle-finished' && e.drifted === 1);
    await f.edit('warn-arm-2', original);
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

    const original = (await f.partOf('heal-arm-1')).config;
    const healed = f.next((e) => e.type === 'drift-healed');
    await f.edit('heal-arm-1', { ...original, components: [] });
    expect(await healed).toMatchObject({ stack: 'fleet', objects: ['fleetform_machine.heal-arm-1'] });
    const targeted = f.plans[f.plans.length - 1] as PlanCall;
    expect(targeted).toMatchObject({ targets: ['fleetform_machine.heal-arm-1'], planned: ['fleetform_machine.heal-arm-1'] });
    expect(f.events.filter((e) => e.type === 'apply-started').pop()).toMatchObject({ changes: 1, heal: true });
    expect((await f.partOf('heal-arm-1')).config).toMatchObject({ components: (original as { components: unknown }).components });

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
    await f.edit('written-arm-3', { ...(await f.partOf('written-arm-3')).config, components: [] });
    expect(await found).toMatchObject({ objects: ['fleetform_machine.written-arm-3'] });
    expect(f.plans.slice(planned).map((p) => p.targets)).toEqual([['fleetform_machine.written-arm-3'], undefined]);
  } finally {
    await f.reconciler.stop();
  }
});
