import {
  describeSchedule,
  describeWaveSteps,
  lateJoinerWave,
  nextWriteAt,
  plannedWaveSteps,
  rampRate,
  scheduleProblems,
  scheduleVerdict,
  waveRate,
  writeSpacingMs,
} from '../../src/domain/rollout-pacing';

const T0 = Date.parse('2026-12-02T09:00:00Z');

describe('when the next write may go', () => {
  test('without a rate, or before any write, at once', () => {
    expect(nextWriteAt([T0], T0 + 1, undefined)).toBe(T0 + 1);
    expect(nextWriteAt([], T0, 30)).toBe(T0);
  });

  test('at 30 a minute, two seconds after the latest write', () => {
    expect(writeSpacingMs(30)).toBe(2000);
    expect(nextWriteAt([T0 - 5000, T0], T0 + 500, 30)).toBe(T0 + 2000);
  });

  test('at once when the spacing has passed already', () => {
    expect(nextWriteAt([T0], T0 + 2500, 30)).toBe(T0 + 2500);
  });

  test('spacing rounds up, so a minute never holds more writes than the rate', () => {
    expect(writeSpacingMs(7)).toBe(8572);
    const writes: number[] = [];
    let now = T0;
    for (let i = 0; i < 20; i += 1) {
      now = nextWriteAt(writes, now, 7);
      writes.push(now);
    }
    for (const start of writes) expect(writes.filter((t) => t >= start && t < start + 60_000).length).toBeLessThanOrEqual(7);
  });
});

describe('an exponential ramp', () => {
  const ramp = { start: 5, factor: 2, ceiling: 50 };

  test('starts at its start and doubles with each passed wave, capped at its ceiling', () => {
    expect([0, 1, 2, 3, 4, 5].map((w) => rampRate(ramp, { wavesPassed: w, written: 0 }))).toEqual([5, 10, 20, 40, 50, 50]);
  });

  test('with everyWritten it steps up each time that many more machines were written', () => {
    const byWrites = { ...ramp, every_written: 10 };
    expect([0, 9, 10, 25, 1000].map((n) => rampRate(byWrites, { wavesPassed: 7, written: n }))).toEqual([5, 5, 10, 20, 50]);
  });

  test("a wave's own rate wins over the rollout's ramp", () => {
    const steps = plannedWaveSteps({ rate: { ramp }, wave_rates: [{ wave: 1, per_minute: 3 }] }, [0, 1, 2]);
    expect(steps.map((s) => waveRate(s, { wavesPassed: 2, written: 0 }))).toEqual([20, 3, 20]);
  });

  test('in words', () => {
    expect(describeWaveSteps({ ramp, pauseBefore: false }, { wavesPassed: 1, written: 0 })).toBe(
      'ramp at 10/min (from 5/min x2 each passed wave, up to 50/min)',
    );
    expect(describeWaveSteps({ perMinute: 30, pauseBefore: false }, { wavesPassed: 0, written: 0 })).toBe('at most 30/min');
    expect(describeWaveSteps({ pauseBefore: true }, { wavesPassed: 0, written: 0 })).toBe('');
  });
});

describe("each planned wave's steps", () => {
  test('without pacing, nothing', () => {
    expect(plannedWaveSteps(undefined, [0, 1])).toEqual([{ pauseBefore: false }, { pauseBefore: false }]);
  });

  test("a pause step before a policy wave holds the planned wave from it; the rollout's rate applies to every wave", () => {
    const steps = plannedWaveSteps({ rate: { per_minute: 20 }, pauses: [1] }, [0, 1, 2]);
    expect(steps).toEqual([
      { perMinute: 20, pauseBefore: false },
      { perMinute: 20, pauseBefore: true },
      { perMinute: 20, pauseBefore: false },
    ]);
  });

  test('a pause before a wave that found no machine holds the next wave that did', () => {
    // Policy waves 0, 1, 2 and the rest (3); wave 1 found no machine.
    expect(plannedWaveSteps({ pauses: [1] }, [0, 2, 3]).map((s) => s.pauseBefore)).toEqual([false, true, false]);
  });

  test('a pause before the first wave holds the rollout before it writes anything', () => {
    expect(plannedWaveSteps({ pauses: [0] }, [0, 1]).map((s) => s.pauseBefore)).toEqual([true, false]);
  });

  test('a pause before the machines no wave took holds that last wave', () => {
    expect(plannedWaveSteps({ pauses: [2] }, [0, 1, 2]).map((s) => s.pauseBefore)).toEqual([false, false, true]);
  });
});

describe('whether the schedule lets a write go', () => {
  const schedule = { not_before: '2026-12-02T09:00:00Z', stop_by: '2026-12-02T17:00:00Z', at_stop: 'finish-wave' as const };

  test('no schedule: always', () => {
    expect(scheduleVerdict(undefined, T0)).toEqual({ kind: 'write' });
  });

  test('before notBefore it waits until then', () => {
    expect(scheduleVerdict(schedule, T0 - 1)).toEqual({ kind: 'wait', until: T0 });
  });

  test('from notBefore to stopBy it writes', () => {
    expect(scheduleVerdict(schedule, T0)).toEqual({ kind: 'write' });
    expect(scheduleVerdict(schedule, Date.parse(schedule.stop_by) - 1)).toEqual({ kind: 'write' });
  });

  test('at stopBy it does what atStop says, unless the stop was released', () => {
    const stop = Date.parse(schedule.stop_by);
    expect(scheduleVerdict(schedule, stop)).toEqual({ kind: 'stop', action: 'finish-wave', at: stop });
    expect(scheduleVerdict({ ...schedule, at_stop: 'rollback' }, stop + 5)).toEqual({ kind: 'stop', action: 'rollback', at: stop });
    expect(scheduleVerdict(schedule, stop + 5, true)).toEqual({ kind: 'write' });
  });

  test('a stop before the start is a problem; the schedule in words', () => {
    expect(scheduleProblems({ ...schedule, stop_by: schedule.not_before })).toHaveLength(1);
    expect(scheduleProblems(schedule)).toEqual([]);
    expect(describeSchedule(schedule)).toBe(
      'writes nothing before 2026-12-02T09:00:00Z; at 2026-12-02T17:00:00Z it finishes the wave it is in, then pauses',
    );
  });
});

describe('which wave a late joiner goes to', () => {
  test('the wave the rollout goes on at, by default', () => {
    expect(lateJoinerWave(undefined, 2, 4)).toBe(2);
    expect(lateJoinerWave('current-wave', 1, 4)).toBe(1);
  });

  test('the last wave when told', () => {
    expect(lateJoinerWave('last-wave', 2, 4)).toBe(4);
  });

  test('never past the last wave, never before the first', () => {
    expect(lateJoinerWave('current-wave', 9, 3)).toBe(3);
    expect(lateJoinerWave('current-wave', 0, 3)).toBe(1);
    expect(lateJoinerWave('last-wave', 1, 0)).toBe(1);
  });
});
