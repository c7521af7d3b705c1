import {
  HEALTH_ANALYSIS_KEYS,
  NOT_IN_HEALTH_ANALYSIS,
  healthAnalysisAttribute,
  parseHealthAnalysis,
} from '../../src/domain/health-analysis';
import { AnalysisSchema, MetricSchema, type Analysis } from '../../src/domain/rollout-analysis';
import { Metric, analysisPolicy } from '../../src/constructs/metric';
import { machineHealthAnalysis } from '../../src/constructs/machine-health-analysis';

const where = { path: 'fleet/picker', field: 'healthGate.analysis' };

test('every field of an analysis and of each metric has a key in the map', () => {
  for (const key of Object.keys(AnalysisSchema.shape))
    if (!(NOT_IN_HEALTH_ANALYSIS as readonly string[]).includes(key)) expect(HEALTH_ANALYSIS_KEYS).toContain(key);
  for (const option of MetricSchema.options)
    for (const key of Object.keys(option.shape)) if (key !== 'kind') expect(HEALTH_ANALYSIS_KEYS).toContain(key);
});

test('each signal kind goes to the map and back unchanged', () => {
  const analyses = analysisPolicy(
    [
      {
        name: 'picks',
        metric: Metric.reading({ resource: 'counter', field: 'picks_per_hour', aggregate: 'p95' }),
        min: 80,
        interval: '20s',
        count: 3,
        failureLimit: 1,
      },
      { name: 'errors', metric: Metric.logRate({ level: 'error', pattern: 'timeout' }), max: 5, inconclusiveLimit: 2 },
      { name: 'calibration', metric: Metric.jobFailures({ job: 'calibrate' }), max: 0, interval: '1m30s' },
      { name: 'modules', metric: Metric.moduleFailures(), max: 1, minMachines: 1 },
    ],
    where,
  );
  const attribute = healthAnalysisAttribute(analyses);
  expect(attribute.picks).toEqual({
    metric: 'reading',
    resource: 'counter',
    method: 'Readings',
    field: 'picks_per_hour',
    aggregate: 'p95',
    min: '80',
    interval: '20s',
    count: '3',
    failure_limit: '1',
  });
  expect(attribute.calibration).toEqual({ metric: 'job_failures', job: 'calibrate', max: '0', interval: '1m30s' });
  const back = parseHealthAnalysis(attribute);
  expect(back.problems).toEqual([]);
  const byName = (list: readonly Analysis[]) => Object.fromEntries(list.map((a) => [a.name, a]));
  expect(byName(back.analyses)).toEqual(byName(analyses));
});

test('a reading written by hand takes Readings as its method and the defaults of an analysis', () => {
  const { analyses, problems } = parseHealthAnalysis({
    picks: { metric: 'reading', resource: 'counter', field: 'picks_per_hour', aggregate: 'mean', min: '50' },
  });
  expect(problems).toEqual([]);
  expect(analyses).toEqual([
    {
      name: 'picks',
      metric: { kind: 'reading', resource: 'counter', method: 'Readings', field: 'picks_per_hour', aggregate: 'mean' },
      min: 50,
      interval_ms: 60_000,
      count: 1,
      failure_limit: 0,
      inconclusive_limit: 0,
      min_machines: 1,
    },
  ]);
});

test.each([
  [
    { errors: { level: 'error', max: '5' } },
    'errors.metric',
    'missing: the metric is one of reading, log_rate, job_failures, module_failures',
  ],
  [{ errors: { metric: 'log_lines', max: '5' } }, 'errors.metric', '"log_lines": the metric is one of'],
  [{ errors: { metric: 'log_rate', max: 'five' } }, 'errors.max', '"five" is not a number'],
  [{ errors: { metric: 'log_rate', max: '5', count: '2.5' } }, 'errors.count', '"2.5" is not a whole number from 0'],
  [{ errors: { metric: 'log_rate', max: '5', interval: 'soon' } }, 'errors.interval', '"soon" is not a duration above zero'],
  [{ errors: { metric: 'log_rate', max: '5', job: 'calibrate' } }, 'errors.job', 'a log_rate metric takes level, pattern, not job'],
  [{ errors: { metric: 'log_rate', max: '5', colour: 'red' } }, 'errors.colour', 'unknown key "colour"'],
  [{ errors: { metric: 'log_rate', max: '5', baseline_min_ratio: '0.9' } }, 'errors.baseline_min_ratio', 'has no baseline'],
  [{ errors: { metric: 'log_rate', level: 'fatal', max: '5' } }, 'errors.level', 'Invalid option'],
  [{ errors: { metric: 'log_rate', level: 'error' } }, 'errors', 'an analysis needs a bound: min or max'],
  [{ calibration: { metric: 'job_failures', max: '0' } }, 'calibration.job', ''],
  [{ picks: { metric: 'reading', resource: 'c', field: 'f', aggregate: 'median', min: '1' } }, 'picks.aggregate', 'an aggregate'],
])('a bad analysis %j is a problem at %s', (raw, key, message) => {
  const { analyses, problems } = parseHealthAnalysis(raw);
  expect(analyses).toEqual([]);
  expect(problems).toContainEqual({ key, message: expect.stringContaining(message) as string });
});

test("a machine's health gate refuses a baseline, naming the field and the way out", () => {
  expect(() =>
    machineHealthAnalysis(
      [{ name: 'picks', metric: Metric.reading({ resource: 'counter', field: 'p', aggregate: 'mean' }), baseline: { minRatio: 0.9 } }],
      'fleet/picker',
    ),
  ).toThrow(/healthGate\.analysis\[0\]\.baseline: a machine's health gate has no baseline/);
});
