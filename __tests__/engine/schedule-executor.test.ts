/**
 * One executor for every apply: a plain apply and a rollout are schedules run by
 * executeSchedule, through the same write steps; the rollout's waves add its gate. The
 * fake note kind stands for machines (each entry names a part), health comes from a fake
 * status source, and the state is a real local backend.
 */
import type { ServiceClient } from '../../src/api/client';
import type { RolloutPlan } from '../../src/domain/rollout';
import { applyStack, executeSchedule, type GatingEnv } from '../../src/engine/apply/executor';
import { plainSchedule, stackRolloutSchedule } from '../../src/engine/apply/schedule';
import type { MachineReading, MachineStatusSource } from '../../src/engine/health/machine-status-source';
import type { DesiredStack } from '../../src/engine/desired/stack';
import type { RolloutEvent } from '../../src/engine/rollout/events';
import { memoryJournalStore } from '../../src/engine/state/rollout-journal';
import { fakeContext } from './fake-kind';
import { notesStack, NotesWorld } from './fake-harness';

/** The revision every write of a part makes, as the fake service reports it. */
const WRITTEN = new Date('2026-11-27T12:00:00.000Z');

/** A service that knows parts only: each one was last written at WRITTEN. */
const partsOnly = {
  appClient: {
    getMachinePart: (id: string) => Promise.resolve({ id, name: id, config: {}, lastUpdated: WRITTEN }),
  },
} as unknown as ServiceClient;

/** Every machine runs the revision written, healthy. */
const healthy = (): Promise<MachineReading> =>
  Promise.resolve({
    reachable: true,
    online: 'online',
    latestRevision: WRITTEN.toISOString(),
    status: { revision: WRITTEN.toISOString(), state: 'running', modules: [], resources: [] },
  });
const source: MachineStatusSource = { read: healthy, status: healthy, errorLines: () => Promise.resolve([]) };

/** Two notes rolled out one per wave, each gated on its health. */
const rollout: RolloutPlan = {
  stack: 's',
  policy: {
    name: 'careful',
    waves: [{ count: 1 }, { fraction: 1 }],
    gate: { timeout_ms: 10_000, settle_ms: 0 },
    abort: {},
    offline: 'wait',
    on_failure: 'halt',
  },
  waves: [
    { rule: 'count 1', machines: [{ address: 'fleetform_note.a', name: 'A' }] },
    { rule: 'fraction 1', machines: [{ address: 'fleetform_note.b', name: 'B' }] },
  ],
};

describe('one executor', () => {
  let world: NotesWorld;
  afterEach(() => world.close());

  /** Notes A and B as machines (their entries name a part), then the changes of `next` as planned. */
  async function machinesThenPlan(next: DesiredStack) {
    world = await NotesWorld.open();
    await world.converge(notesStack({ a: { title: 'A', text: '1' }, b: { title: 'B', text: '1' } }));
    const state = await world.state();
    for (const entry of Object.values(state.resources)) entry.ids = { ...entry.ids, part_id: entry.ids.id ?? '' };
    state.serial += 1;
    await world.backend.write(state);
    world.reporter.events.length = 0;
    const changes = (await world.plan(next)).filter((c) => c.action !== 'no-op');
    return { changes, state: await world.state() };
  }

  const next = notesStack({ a: { title: 'A', text: '2' }, b: { title: 'B', text: '2' }, c: { title: 'C' } });

  test('a plain apply is a schedule of one wave, no gate: every change written at once by the write steps', async () => {
    const { changes, state } = await machinesThenPlan(next);
    const env = {
      stack: next,
      state,
      backend: world.backend,
      kinds: world.kinds,
      ctx: fakeContext(),
      parallelism: 1,
      reporter: world.reporter,
    };
    const outcome = await executeSchedule(plainSchedule('s', changes), env);
    expect(outcome).toEqual({ applied: 3, failed: [], skipped: [] });
    expect([...world.reporter.events].sort()).toEqual([
      'done:fleetform_note.a',
      'done:fleetform_note.b',
      'done:fleetform_note.c',
      'start:fleetform_note.a',
      'start:fleetform_note.b',
      'start:fleetform_note.c',
    ]);
    expect(world.store.log.slice(-3).sort()).toEqual(['create:C', 'update:A', 'update:B']);
  });

  test('applyStack is the plain schedule through the executor', async () => {
    const { changes, state } = await machinesThenPlan(next);
    const outcome = await applyStack({
      stack: next,
      changes,
      state,
      backend: world.backend,
      kinds: world.kinds,
      ctx: fakeContext(),
      parallelism: 1,
      reporter: world.reporter,
    });
    expect(outcome).toEqual({ applied: 3, failed: [], skipped: [] });
  });

  test("a rollout runs through the same executor: its lead by the same write steps, then each wave's writes behind the gate, journaled", async () => {
    const { changes, state } = await machinesThenPlan(next);
    const events: RolloutEvent[] = [];
    const journals = memoryJournalStore();
    const gating: GatingEnv = { source: () => Promise.resolve(source), events: (e) => events.push(e), journals };
    const env = {
      stack: next,
      state,
      backend: world.backend,
      kinds: world.kinds,
      ctx: { ...fakeContext(), client: partsOnly },
      parallelism: 1,
      reporter: world.reporter,
      gating,
    };
    const outcome = await executeSchedule(stackRolloutSchedule('s', changes, rollout, undefined), env);
    expect(outcome.failed).toEqual([]);
    expect(outcome.applied).toBe(3);
    expect(outcome.rollout).toMatchObject({
      outcome: 'completed',
      waves: [{ machines: [{ machine: 'A', result: 'healthy' }] }, { machines: [{ machine: 'B', result: 'healthy' }] }],
    });
    // The lead (C) first, then A in wave 1 and B in wave 2: each through the reporter, as a plain apply.
    expect(world.reporter.events).toEqual([
      'start:fleetform_note.c',
      'done:fleetform_note.c',
      'start:fleetform_note.a',
      'done:fleetform_note.a',
      'start:fleetform_note.b',
      'done:fleetform_note.b',
    ]);
    expect(events.filter((e) => e.type === 'wave' || e.type === 'healthy').map((e) => `${e.type}:${e.wave}`)).toEqual([
      'wave:1',
      'healthy:1',
      'wave:2',
      'healthy:2',
    ]);
    expect(await journals.read('s')).toMatchObject({
      status: 'completed',
      wave: 2,
      machines: [
        { address: 'fleetform_note.a', result: 'healthy' },
        { address: 'fleetform_note.b', result: 'healthy' },
      ],
    });
    expect((await world.state()).resources['fleetform_note.b']?.attributes).toMatchObject({ text: '2' });
  });

  test('a wave boundary pauses the rollout between waves; it stays journaled as running', async () => {
    const { changes, state } = await machinesThenPlan(next);
    const journals = memoryJournalStore();
    const gating: GatingEnv = {
      source: () => Promise.resolve(source),
      events: () => undefined,
      journals,
      waveBoundary: ({ wave }) => (wave === 2 ? 'the window closed' : undefined),
    };
    const env = {
      stack: next,
      state,
      backend: world.backend,
      kinds: world.kinds,
      ctx: { ...fakeContext(), client: partsOnly },
      parallelism: 1,
      reporter: world.reporter,
      gating,
    };
    const outcome = await executeSchedule(stackRolloutSchedule('s', changes, rollout, undefined), env);
    expect(outcome.rollout).toMatchObject({ outcome: 'paused', stoppedAt: 2, reason: 'the window closed' });
    expect(outcome.skipped).toEqual(['fleetform_note.b']);
    expect(await journals.read('s')).toMatchObject({ status: 'running', wave: 2 });
  });

  test('a rollout without health gating is refused, naming the stack', async () => {
    const { changes, state } = await machinesThenPlan(next);
    const env = {
      stack: next,
      state,
      backend: world.backend,
      kinds: world.kinds,
      ctx: fakeContext(),
      parallelism: 1,
      reporter: world.reporter,
    };
    await expect(executeSchedule(stackRolloutSchedule('s', changes, rollout, undefined), env)).rejects.toThrow(
      'a rollout of stack s was scheduled without health gating',
    );
  });
});
