import {
  AnalysisSchema,
  decideAnalysis,
  describeAnalysis,
  machineValue,
  measure,
  pooledValue,
  type Analysis,
  type MachineSample,
  type Measurement,
} from '../../src/domain/rollout-analysis';
import { RolloutPolicySchema } from '../../src/domain/rollout';

const picks: Analysis = {
  name: 'picks',
  metric: { kind: 'reading', resource: 'counter', method: 'Readings', field: 'picks_per_hour', aggregate: 'mean' },
  baseline: { min_ratio: 0.9 },
  interval_ms: 20_000,
  count: 3,
  failure_limit: 1,
  inconclusive_limit: 0,
  min_machines: 1,
};
const errors: Analysis = { ...picks, name: 'errors', metric: { kind: 'log_rate', level: 'error' }, baseline: undefined, max: 5, count: 1 };

const points = (machine: string, ...values: number[]): MachineSample => ({
  machine,
  points: values.map((value, i) => ({ at: i * 1000, value })),
});
const m = (result: Measurement['result']): Measurement => ({ at: 0, result, machines: [], why: result });

describe('machine values', () => {
  test('each reading aggregate', () => {
    const s = points('a', 10, 20, 30, 40);
    const reading = (aggregate: string) => ({ ...(picks.metric as Extract<Analysis['metric'], { kind: 'reading' }>), aggregate });
    expect(machineValue(reading('mean'), s, 60_000)).toBe(25);
    expect(machineValue(reading('min'), s, 60_000)).toBe(10);
    expect(machineValue(reading('max'), s, 60_000)).toBe(40);
    expect(machineValue(reading('count'), s, 60_000)).toBe(4);
    expect(machineValue(reading('p50'), s, 60_000)).toBe(20);
    expect(machineValue(reading('p99'), s, 60_000)).toBe(40);
    // 30 more over 3 s: 600 a minute.
    expect(machineValue(reading('rate'), s, 60_000)).toBe(600);
    expect(machineValue(reading('mean'), { machine: 'a', points: [] }, 60_000)).toBeUndefined();
    expect(machineValue(reading('rate'), points('a', 5), 60_000)).toBeUndefined();
  });

  test('log lines a minute, job failures, module failures; an unreadable machine reports nothing', () => {
    expect(machineValue(errors.metric, points('a', 1, 1, 1), 30_000)).toBe(6);
    expect(machineValue(errors.metric, points('a'), 30_000)).toBe(0);
    expect(machineValue({ kind: 'job_failures', job: 'calibrate' }, points('a', 1, 1), 30_000)).toBe(2);
    expect(machineValue({ kind: 'module_failures' }, points('a', 2, 7), 30_000)).toBe(7);
    expect(machineValue({ kind: 'module_failures' }, points('a'), 30_000)).toBe(0);
    expect(machineValue(errors.metric, { machine: 'a', points: undefined }, 30_000)).toBeUndefined();
  });

  test('a pooled reading mean is over every point; pooled counts are per machine', () => {
    expect(pooledValue(picks.metric, [points('a', 10), points('b', 20, 30, 40)], 60_000)).toBe(25);
    expect(pooledValue(errors.metric, [points('a', 1, 1), points('b')], 60_000)).toBe(1);
  });
});

describe('a measurement', () => {
  test('passes a bound every machine keeps', () => {
    const r = measure(errors, 1, [points('a', 1), points('b')], undefined);
    expect(r.result).toBe('pass');
    expect(r.machines).toEqual([
      { machine: 'a', value: 3 },
      { machine: 'b', value: 0 },
    ]);
  });

  test('fails a bound, naming the machines outside it, their values and the bound', () => {
    const lines = Array.from({ length: 4 }, () => 1);
    const r = measure(errors, 1, [points('a', ...lines), points('b')], undefined);
    expect(r.result).toBe('fail');
    expect(r.why).toBe('log lines at error a minute on a 12; the bound is at most 5');
  });

  test('passes a baseline ratio and fails below it, with both values', () => {
    const ok = measure(picks, 1, [points('canary', 95, 95)], [points('b', 100), points('c', 100)]);
    expect(ok.result).toBe('pass');
    expect(ok.baseline).toBe(100);
    const low = measure(picks, 1, [points('canary', 70, 70)], [points('b', 100), points('c', 100)]);
    expect(low.result).toBe('fail');
    expect(low.why).toContain('mean of counter.Readings picks_per_hour 70 (canary 70) is 0.7x the baseline');
    expect(low.why).toContain('at least 0.9x the baseline');
  });

  test('is inconclusive without data on either side, never a pass', () => {
    expect(measure(picks, 1, [{ machine: 'a', points: [] }], [points('b', 1)]).result).toBe('inconclusive');
    expect(measure(picks, 1, [points('a', 1)], [{ machine: 'b', points: undefined }]).result).toBe('inconclusive');
    expect(measure({ ...errors, min_machines: 2 }, 1, [points('a'), { machine: 'b', points: undefined }], undefined).why).toBe(
      '1 of 2 machine(s) reported log lines at error a minute (at least 2 needed)',
    );
  });

  test('with no machine left to compare with, a baseline analysis measures its bounds alone', () => {
    expect(measure(picks, 1, [points('a', 1)], undefined).result).toBe('pass');
  });
});

describe('the decision', () => {
  test('continues until count, then passes with a pass among them', () => {
    expect(decideAnalysis(picks, [m('pass')]).decision).toBe('continue');
    expect(decideAnalysis(picks, [m('pass'), m('fail')]).decision).toBe('continue');
    expect(decideAnalysis(picks, [m('pass'), m('fail'), m('pass')]).decision).toBe('passed');
  });

  test('fails past failure_limit, at once', () => {
    const d = decideAnalysis(picks, [m('fail'), m('fail')]);
    expect(d.decision).toBe('failed');
    expect(d.decision === 'failed' && d.why).toContain('more than failure_limit 1');
  });

  test('ends inconclusive past inconclusive_limit, and says so', () => {
    const d = decideAnalysis(picks, [m('inconclusive')]);
    expect(d).toEqual({ decision: 'inconclusive', why: expect.stringContaining('inconclusive 1 time(s), more than inconclusive_limit 0') });
  });

  test('all measurements tolerated as inconclusive is still not a pass', () => {
    const lenient = { ...errors, count: 2, inconclusive_limit: 2 };
    expect(decideAnalysis(lenient, [m('inconclusive'), m('inconclusive')]).decision).toBe('inconclusive');
  });
});

test('an analysis needs a condition, and a rollout policy takes its analyses', () => {
  expect(AnalysisSchema.safeParse({ ...errors, max: undefined }).success).toBe(false);
  const policy = {
    name: 'r',
    waves: [{ count: 1 }],
    gate: { timeout_ms: 1, settle_ms: 0 },
    abort: {},
    offline: 'wait',
    on_failure: 'rollback',
    analysis: [picks, errors],
  };
  expect(RolloutPolicySchema.parse(policy).analysis).toHaveLength(2);
  expect(describeAnalysis(picks)).toBe(
    'picks: mean of counter.Readings picks_per_hour at least 0.9x the baseline, 3 x 20s (tolerates 1 failed)',
  );
});
