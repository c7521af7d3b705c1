import type { RolloutPlan, RolloutPolicy } from '../../src/domain/rollout';
import { releasedJournal } from '../../src/engine/state/rollout-journal-pacing';
import { JOINED_LATE_RULE, withCreatedMachines, withLateJoiners } from '../../src/engine/rollout/late-joiners';
import { holdBeforeWave, runSteps, writePaced, type PaceState, type RolloutClock } from '../../src/engine/rollout/pacing';
import type { ResourceChange } from '../../src/engine/plan-model';

const T0 = Date.parse('2026-12-02T09:00:00Z');

/** A clock a test drives: sleeping moves it on at once, and each sleep is noted. */
function testClock(start = T0): RolloutClock & { slept: number[] } {
  let now = start;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: (ms) => {
      slept.push(ms);
      now += ms;
      return Promise.resolve();
    },
  };
}

const policy = (pacing: RolloutPolicy['pacing']): RolloutPolicy => ({
  name: 'careful',
  waves: [{ fraction: 0.5 }, { fraction: 1 }],
  gate: { timeout_ms: 1000, settle_ms: 0 },
  abort: {},
  offline: 'wait',
  on_failure: 'rollback',
  ...(pacing ? { pacing } : {}),
});

const targets = (n: number) => Array.from({ length: n }, (_, i) => ({ address: `fleetform_machine.m${i}` }));

describe('writing a wave at its rate', () => {
  test('without a rate every target is written in one batch', async () => {
    const clock = testClock();
    const batches: number[] = [];
    const pace: PaceState = { writes: [], progress: { wavesPassed: 0, written: 0 } };
    const p = policy(undefined);
    const r = await writePaced(targets(3), { steps: runSteps(p, [{ from: 0 }])[0], policy: p, stopReleased: false, clock, pace }, (b) => {
      batches.push(b.length);
      return Promise.resolve(new Map(b.map((t) => [t.address, 'ok'])));
    });
    expect(batches).toEqual([3]);
    expect(r.written).toHaveLength(3);
    expect(clock.slept).toEqual([]);
    expect(pace.progress.written).toBe(3);
  });

  test('at 30 a minute one at a time, each two seconds after the one before was written', async () => {
    const clock = testClock();
    const at: number[] = [];
    const p = policy({ rate: { per_minute: 30 } });
    const pace: PaceState = { writes: [], progress: { wavesPassed: 0, written: 0 } };
    await writePaced(targets(4), { steps: runSteps(p, [{ from: 0 }])[0], policy: p, stopReleased: false, clock, pace }, (b) => {
      at.push(clock.now());
      return Promise.resolve(new Map(b.map((t) => [t.address, 'ok'])));
    });
    expect(at.map((t) => t - T0)).toEqual([0, 2000, 4000, 6000]);
  });

  test('the spacing holds across waves: the next wave waits for the last write of the one before', async () => {
    const clock = testClock();
    const p = policy({ rate: { per_minute: 60 } });
    const pace: PaceState = { writes: [T0 - 200], progress: { wavesPassed: 1, written: 3 } };
    const at: number[] = [];
    await writePaced(targets(1), { steps: runSteps(p, [{ from: 1 }])[0], policy: p, stopReleased: false, clock, pace }, (b) => {
      at.push(clock.now());
      return Promise.resolve(new Map(b.map((t) => [t.address, 'ok'])));
    });
    expect(at).toEqual([T0 + 800]);
  });

  test("a ramp's rate rises with each passed wave", async () => {
    const p = policy({ rate: { ramp: { start: 30, factor: 2, ceiling: 60 } } });
    const gaps = async (wavesPassed: number): Promise<number[]> => {
      const clock = testClock();
      const at: number[] = [];
      const pace: PaceState = { writes: [], progress: { wavesPassed, written: 0 } };
      await writePaced(targets(3), { steps: runSteps(p, [{ from: 0 }])[0], policy: p, stopReleased: false, clock, pace }, (b) => {
        at.push(clock.now());
        return Promise.resolve(new Map(b.map((t) => [t.address, 'ok'])));
      });
      return at.slice(1).map((t, i) => t - (at[i] ?? 0));
    };
    expect(await gaps(0)).toEqual([2000, 2000]);
    expect(await gaps(1)).toEqual([1000, 1000]);
    expect(await gaps(5)).toEqual([1000, 1000]);
  });

  test("the schedule's stop cuts the writes short (pause, rollback), or lets the wave finish", async () => {
    const stopBy = new Date(T0 + 3000).toISOString();
    for (const [action, count] of [
      ['pause', 2],
      ['rollback', 2],
      ['finish-wave', 4],
    ] as const) {
      const clock = testClock();
      const p = policy({ rate: { per_minute: 30 }, schedule: { stop_by: stopBy, at_stop: action } });
      const pace: PaceState = { writes: [], progress: { wavesPassed: 0, written: 0 } };
      const r = await writePaced(targets(4), { steps: runSteps(p, [{ from: 0 }])[0], policy: p, stopReleased: false, clock, pace }, (b) =>
        Promise.resolve(new Map(b.map((t) => [t.address, 'ok']))),
      );
      expect([action, r.written.length]).toEqual([action, count]);
      expect(r.cut?.action).toBe(action === 'finish-wave' ? undefined : action);
    }
  });
});

describe('what holds a rollout before a wave', () => {
  const base = { released: [], stopReleased: false, wait: true, onWait: () => undefined };

  test('a pause step holds it until its wave is released', async () => {
    const p = policy({ pauses: [1] });
    const steps = runSteps(p, [{ from: 0 }, { from: 1 }]);
    const clock = testClock();
    expect(await holdBeforeWave({ ...base, policy: p, steps: steps[0], wave: 1, clock })).toBeUndefined();
    const held = await holdBeforeWave({ ...base, policy: p, steps: steps[1], wave: 2, clock });
    expect(held).toMatchObject({ kind: 'paused', hold: { kind: 'pause-step', wave: 2 } });
    expect(await holdBeforeWave({ ...base, released: [2], policy: p, steps: steps[1], wave: 2, clock })).toBeUndefined();
  });

  test("before the schedule's start it waits until then, saying so once", async () => {
    const p = policy({ schedule: { not_before: new Date(T0 + 150_000).toISOString(), at_stop: 'pause' } });
    const clock = testClock();
    const told: string[] = [];
    const held = await holdBeforeWave({ ...base, onWait: (u) => told.push(u), policy: p, steps: undefined, wave: 1, clock });
    expect(held).toBeUndefined();
    expect(clock.now()).toBe(T0 + 150_000);
    expect(told).toEqual([new Date(T0 + 150_000).toISOString()]);
    expect(clock.slept).toEqual([60_000, 60_000, 30_000]);
  });

  test("told not to wait, it is left waiting for the schedule's start", async () => {
    const until = new Date(T0 + 60_000).toISOString();
    const p = policy({ schedule: { not_before: until, at_stop: 'pause' } });
    const held = await holdBeforeWave({ ...base, wait: false, policy: p, steps: undefined, wave: 1, clock: testClock() });
    expect(held).toMatchObject({ kind: 'waiting', hold: { kind: 'not-before', wave: 1, until } });
  });

  test('past stopBy: paused (pause, finish-wave) or stopped (rollback); a released stop no longer holds', async () => {
    const stop = { stop_by: new Date(T0 - 1).toISOString() };
    const clock = testClock();
    for (const at_stop of ['pause', 'finish-wave'] as const)
      expect(
        await holdBeforeWave({ ...base, policy: policy({ schedule: { ...stop, at_stop } }), steps: undefined, wave: 2, clock }),
      ).toMatchObject({ kind: 'paused', hold: { kind: 'stop-by', wave: 2 } });
    const rollback = policy({ schedule: { ...stop, at_stop: 'rollback' } });
    expect(await holdBeforeWave({ ...base, policy: rollback, steps: undefined, wave: 2, clock })).toMatchObject({ kind: 'stop' });
    expect(await holdBeforeWave({ ...base, stopReleased: true, policy: rollback, steps: undefined, wave: 2, clock })).toBeUndefined();
  });
});

describe('machines that join a running rollout', () => {
  const m = (n: number) => ({ address: `fleetform_machine.m${n}`, name: `m${n}` });
  const journaled: RolloutPlan['waves'] = [
    { rule: 'count 1', machines: [m(1)], from: 0 },
    { rule: 'fraction 0.5', machines: [m(2)], from: 1 },
    { rule: 'fraction 1', machines: [m(3)], from: 2 },
  ];
  const planned: RolloutPlan['waves'] = [{ rule: 'count 1', machines: [m(2), m(4)], from: 0 }];

  test('go in the wave the rollout goes on at, recorded with it', () => {
    const r = withLateJoiners(journaled, planned, policy(undefined), 2, 'now');
    expect(r.waves[1]?.machines.map((x) => x.name)).toEqual(['m2', 'm4']);
    expect(r.joined).toEqual([{ address: 'fleetform_machine.m4', name: 'm4', wave: 2, at: 'now' }]);
    // The journal's waves are not changed in place.
    expect(journaled[1]?.machines).toHaveLength(1);
  });

  test('or in its last wave', () => {
    const r = withLateJoiners(journaled, planned, policy({ late_joiners: 'last-wave' }), 2, 'now');
    expect(r.waves[2]?.machines.map((x) => x.name)).toEqual(['m3', 'm4']);
    expect(r.joined[0]?.wave).toBe(3);
  });

  test('none when every planned machine is in the waves already', () => {
    expect(withLateJoiners(journaled, [{ rule: 'x', machines: [m(1), m(3)] }], policy(undefined), 2, 'now').joined).toEqual([]);
  });

  const change = (address: string, action: ResourceChange['action'], type = 'fleetform_machine'): ResourceChange =>
    ({
      stack: 'fleet',
      address,
      type,
      action,
      after: { name: address.split('.')[1] },
      changes: [],
      problems: [],
      facts: {},
    }) as unknown as ResourceChange;

  test("machines the stack creates while a journal runs join the rollout's plan; without a journal they do not", () => {
    const rollout: RolloutPlan = { stack: 'fleet', policy: policy(undefined), waves: journaled };
    const changes = [
      change('fleetform_machine.m9', 'create'),
      change('fleetform_machine.m1', 'update'),
      change('fleetform_location.l', 'create', 'fleetform_location'),
    ];
    expect(withCreatedMachines(rollout, changes, false)).toBe(rollout);
    const joined = withCreatedMachines(rollout, changes, true);
    expect(joined.waves).toHaveLength(4);
    expect(joined.waves[3]).toEqual({ rule: JOINED_LATE_RULE, machines: [{ address: 'fleetform_machine.m9', name: 'm9' }] });
  });
});

describe('releasing a held journal', () => {
  const held = { status: 'paused' as const, released: [2], hold: { kind: 'pause-step' as const, wave: 3, since: 'then' } };

  test('a pause step: running again, its wave released', () => {
    expect(releasedJournal(held)).toEqual({ status: 'running', released: [2, 3] });
  });

  test("the schedule's stop: running again, the stop released", () => {
    expect(releasedJournal({ status: 'paused' as const, hold: { kind: 'stop-by' as const, wave: 1, since: 'then' } })).toEqual({
      status: 'running',
      stop_released: true,
    });
  });

  test('a journal not paused is left as it is', () => {
    const waiting = { status: 'waiting' as const, hold: { kind: 'not-before' as const, wave: 1, since: 'then', until: 'later' } };
    expect(releasedJournal(waiting)).toBe(waiting);
  });
});
