/**
 * A rollout's analysis: metrics measured on a wave's machines once they are healthy, each
 * with a success condition, taken `count` times every `interval`. Pure rules: the runner
 * reads the samples (machine status, part logs, captured tabular data) and feeds them here.
 *
 * A measurement covers the window of one interval before it. Its machines' values:
 * - `reading`: the aggregate of a captured reading's field (`mean`, `min`, `max`, `count`
 *   of points, `rate`: the field's change per minute, `pNN`: the NNth percentile);
 * - `log_rate`: the part's log lines at a level (or matching a pattern) per minute;
 * - `job_failures`: the job's failed runs in the window;
 * - `module_failures`: the highest `consecutive_failures` of the module (or of any module).
 * A bound (`min`, `max`) holds for every machine of the wave that reports; a `baseline`
 * compares the wave's pooled value with that of the rollout's machines not yet written,
 * over the same window (`min_ratio`: wave / baseline at least that, `max_ratio`: at most).
 * Fewer reporting machines than `min_machines` on either side is inconclusive, never a pass.
 *
 * The analysis fails once more measurements failed than `failure_limit`, ends inconclusive
 * once more were inconclusive than `inconclusive_limit`, and passes after `count`
 * measurements with at least one pass; until then it continues.
 */
import { z } from 'zod';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `mean`, `min`, `max`, `count`, `rate` (change per minute), or `p` and a percentile from 1 to 99 (`p95`). */
export const READING_AGGREGATE_PATTERN = /^(mean|min|max|count|rate|p([1-9]\d?))$/;

export const MetricSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('reading'),
    /** The resource's short name, as the data manager captures it. */
    resource: z.string().min(1),
    /** The resource's API (`resource_subtype` of the captured data); a sensor's when unset. */
    api: z.string().min(1).optional(),
    method: z.string().min(1),
    field: z.string().min(1),
    aggregate: z.string().regex(READING_AGGREGATE_PATTERN, 'an aggregate: mean, min, max, count, rate, or pNN (p50, p95, p99)'),
  }),
  z.strictObject({
    kind: z.literal('log_rate'),
    level: z.enum(LOG_LEVELS).optional(),
    /** Lines whose message contains it (case-insensitive). */
    pattern: z.string().min(1).optional(),
  }),
  z.strictObject({ kind: z.literal('job_failures'), job: z.string().min(1) }),
  z.strictObject({ kind: z.literal('module_failures'), module: z.string().min(1).optional() }),
]);
export type Metric = z.infer<typeof MetricSchema>;

export const AnalysisSchema = z
  .strictObject({
    name: z.string().min(1),
    metric: MetricSchema,
    min: z.number().optional(),
    max: z.number().optional(),
    baseline: z
      .strictObject({ min_ratio: z.number().nonnegative().optional(), max_ratio: z.number().nonnegative().optional() })
      .refine((b) => b.min_ratio !== undefined || b.max_ratio !== undefined, 'a baseline takes min_ratio or max_ratio')
      .optional(),
    interval_ms: z.number().int().positive(),
    count: z.number().int().positive(),
    failure_limit: z.number().int().nonnegative(),
    inconclusive_limit: z.number().int().nonnegative(),
    /** The fewest machines that must report on each side for a measurement to count. */
    min_machines: z.number().int().positive(),
  })
  .refine((a) => a.min !== undefined || a.max !== undefined || a.baseline !== undefined, {
    message: 'an analysis needs a condition: min, max or baseline',
  });
export type Analysis = z.infer<typeof AnalysisSchema>;

/** Defaults: one measurement over a minute, no failure nor inconclusive measurement tolerated, one machine reporting. */
export const DEFAULT_ANALYSIS_INTERVAL_MS = 60_000;
export const DEFAULT_ANALYSIS_COUNT = 1;
/** The API a reading's resource has when its metric names none. */
export const DEFAULT_READING_API = 'rdk:component:sensor';

/** One point of a machine's signal: a captured value, a log line or a failed run (value 1), a failure count. */
export interface SamplePoint {
  readonly at: number;
  readonly value: number;
}

/** What one machine gave for a metric over a window: its points, or nothing when it could not be read. */
export interface MachineSample {
  readonly machine: string;
  /** Undefined: the machine could not be read (it reports nothing). */
  readonly points: readonly SamplePoint[] | undefined;
}

export type MeasurementResult = 'pass' | 'fail' | 'inconclusive';

/** One measurement: its result, the values it compared and why, as kept in the journal. */
export interface Measurement {
  readonly at: number;
  readonly result: MeasurementResult;
  /** The wave's pooled value, when any machine reported. */
  readonly value?: number;
  readonly baseline?: number;
  /** Each wave machine's value (absent: it reported nothing). */
  readonly machines: readonly { readonly machine: string; readonly value?: number }[];
  readonly why: string;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(0, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[rank] as number;
}

/** The aggregate of captured values; undefined with too few points for it (none, or one for a rate). */
function aggregateReading(aggregate: string, points: readonly SamplePoint[], windowMs: number): number | undefined {
  if (aggregate === 'count') return points.length;
  if (points.length === 0) return undefined;
  const values = points.map((p) => p.value);
  if (aggregate === 'mean') return values.reduce((a, b) => a + b, 0) / values.length;
  if (aggregate === 'min') return Math.min(...values);
  if (aggregate === 'max') return Math.max(...values);
  if (aggregate === 'rate') {
    if (points.length < 2) return undefined;
    const sorted = [...points].sort((a, b) => a.at - b.at);
    const first = sorted[0] as SamplePoint;
    const last = sorted[sorted.length - 1] as SamplePoint;
    const minutes = (last.at - first.at || windowMs) / 60_000;
    return (last.value - first.value) / minutes;
  }
  return percentile(values, Number(aggregate.slice(1)));
}

/** One machine's value over a window of `windowMs`; undefined when it reports nothing the metric can use. */
export function machineValue(metric: Metric, sample: MachineSample, windowMs: number): number | undefined {
  const points = sample.points;
  if (points === undefined) return undefined;
  switch (metric.kind) {
    case 'reading':
      return metric.aggregate === 'count' && points.length === 0 ? undefined : aggregateReading(metric.aggregate, points, windowMs);
    case 'log_rate':
      return points.length / (windowMs / 60_000);
    case 'job_failures':
      return points.length;
    case 'module_failures':
      return Math.max(0, ...points.map((p) => p.value));
  }
}

/**
 * The pooled value of a set of machines: a reading's mean, min, max and percentiles over
 * all their points; any other value (counts, rates) as the mean of the machines' values, so
 * sets of different sizes compare.
 */
export function pooledValue(metric: Metric, samples: readonly MachineSample[], windowMs: number): number | undefined {
  const reporting = samples.filter((s) => machineValue(metric, s, windowMs) !== undefined);
  if (reporting.length === 0) return undefined;
  if (metric.kind === 'reading' && metric.aggregate !== 'count' && metric.aggregate !== 'rate')
    return aggregateReading(
      metric.aggregate,
      reporting.flatMap((s) => s.points ?? []),
      windowMs,
    );
  const values = reporting.map((s) => machineValue(metric, s, windowMs) as number);
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/** A value for a message: up to three decimals. */
export function formatValue(value: number | undefined): string {
  return value === undefined ? 'no data' : String(Math.round(value * 1000) / 1000);
}

/** The metric in words: `reading counter.Readings picks_per_hour (mean)`, `log lines at error a minute`. */
export function describeMetric(metric: Metric): string {
  switch (metric.kind) {
    case 'reading':
      return `${metric.aggregate} of ${metric.resource}.${metric.method} ${metric.field}`;
    case 'log_rate':
      return `log lines${metric.level ? ` at ${metric.level}` : ''}${metric.pattern ? ` matching ${JSON.stringify(metric.pattern)}` : ''} a minute`;
    case 'job_failures':
      return `failed runs of job ${metric.job}`;
    case 'module_failures':
      return `consecutive failures of ${metric.module ? `module ${metric.module}` : 'any module'}`;
  }
}

/** The condition in words: `at most 5`, `at least 0.9x the baseline`. */
export function describeCondition(a: Pick<Analysis, 'min' | 'max' | 'baseline'>): string {
  const parts: string[] = [];
  if (a.min !== undefined) parts.push(`at least ${a.min}`);
  if (a.max !== undefined) parts.push(`at most ${a.max}`);
  if (a.baseline?.min_ratio !== undefined) parts.push(`at least ${a.baseline.min_ratio}x the baseline`);
  if (a.baseline?.max_ratio !== undefined) parts.push(`at most ${a.baseline.max_ratio}x the baseline`);
  return parts.join(' and ');
}

/** An analysis in one line, for the plan: `picks: mean of counter.Readings picks_per_hour at least 0.9x the baseline, 3 x 20s (1 failure tolerated)`. */
export function describeAnalysis(a: Analysis): string {
  const tolerated = [
    a.failure_limit > 0 ? `${a.failure_limit} failed` : '',
    a.inconclusive_limit > 0 ? `${a.inconclusive_limit} inconclusive` : '',
  ].filter((t) => t !== '');
  return `${a.name}: ${describeMetric(a.metric)} ${describeCondition(a)}, ${a.count} x ${a.interval_ms / 1000}s${tolerated.length > 0 ? ` (tolerates ${tolerated.join(', ')})` : ''}`;
}

function outside(a: Analysis, value: number): boolean {
  return (a.min !== undefined && value < a.min) || (a.max !== undefined && value > a.max);
}

/**
 * One measurement at `at` over the window of one interval: the wave's machines' samples, and
 * (for a baseline) those of the machines not yet written. `baseline` undefined: no machine
 * is left to compare with, so the baseline condition is not measured.
 */
export function measure(
  a: Analysis,
  at: number,
  wave: readonly MachineSample[],
  baseline: readonly MachineSample[] | undefined,
): Measurement {
  const windowMs = a.interval_ms;
  const machines = wave.map((s) => {
    const value = machineValue(a.metric, s, windowMs);
    return value === undefined ? { machine: s.machine } : { machine: s.machine, value };
  });
  const reporting = machines.filter((m) => m.value !== undefined);
  const value = pooledValue(a.metric, wave, windowMs);
  const base = { at, machines, ...(value === undefined ? {} : { value }) };
  if (reporting.length < a.min_machines || value === undefined)
    return {
      ...base,
      result: 'inconclusive',
      why: `${reporting.length} of ${wave.length} machine(s) reported ${describeMetric(a.metric)} (at least ${a.min_machines} needed)`,
    };
  const failing = reporting.filter((m) => outside(a, m.value as number));
  if (failing.length > 0) {
    const list = failing.map((m) => `${m.machine} ${formatValue(m.value)}`).join(', ');
    return {
      ...base,
      result: 'fail',
      why: `${describeMetric(a.metric)} on ${list}; the bound is ${describeCondition({ ...a, baseline: undefined })}`,
    };
  }
  if (a.baseline === undefined)
    return { ...base, result: 'pass', why: `${describeMetric(a.metric)} ${formatValue(value)} within the bound` };
  if (baseline === undefined)
    return {
      ...base,
      result: 'pass',
      why: `${describeMetric(a.metric)} ${formatValue(value)}; no machine is left on the old config to compare with, so only its bounds count`,
    };
  const others = baseline.filter((s) => machineValue(a.metric, s, windowMs) !== undefined);
  const reference = pooledValue(a.metric, baseline, windowMs);
  if (others.length < a.min_machines || reference === undefined)
    return {
      ...base,
      result: 'inconclusive',
      why: `${others.length} of ${baseline.length} baseline machine(s) reported ${describeMetric(a.metric)} (at least ${a.min_machines} needed)`,
    };
  const withBaseline = { ...base, baseline: reference };
  const ratio = reference === 0 ? (value === 0 ? 1 : Number.POSITIVE_INFINITY) : value / reference;
  const { min_ratio: minRatio, max_ratio: maxRatio } = a.baseline;
  const values = reporting.map((m) => `${m.machine} ${formatValue(m.value)}`).join(', ');
  const said = `${describeMetric(a.metric)} ${formatValue(value)} (${values}) is ${formatValue(ratio)}x the baseline's ${formatValue(reference)} (${others.length} machine(s))`;
  if ((minRatio !== undefined && ratio < minRatio) || (maxRatio !== undefined && ratio > maxRatio))
    return { ...withBaseline, result: 'fail', why: `${said}; the bound is ${describeCondition({ baseline: a.baseline })}` };
  return { ...withBaseline, result: 'pass', why: said };
}

export type AnalysisDecision =
  | { readonly decision: 'continue' }
  | { readonly decision: 'passed'; readonly why: string }
  | { readonly decision: 'failed'; readonly why: string }
  | { readonly decision: 'inconclusive'; readonly why: string };

/** Where an analysis stands after its measurements so far (in order). */
export function decideAnalysis(a: Analysis, measurements: readonly Measurement[]): AnalysisDecision {
  const failed = measurements.filter((m) => m.result === 'fail');
  const inconclusive = measurements.filter((m) => m.result === 'inconclusive');
  const passed = measurements.filter((m) => m.result === 'pass').length;
  const last = (list: readonly Measurement[]): string => list[list.length - 1]?.why ?? '';
  if (failed.length > a.failure_limit)
    return {
      decision: 'failed',
      why: `analysis ${a.name} failed ${failed.length} of ${measurements.length} measurement(s), more than failure_limit ${a.failure_limit}: ${last(failed)}`,
    };
  if (inconclusive.length > a.inconclusive_limit)
    return {
      decision: 'inconclusive',
      why: `analysis ${a.name} was inconclusive ${inconclusive.length} time(s), more than inconclusive_limit ${a.inconclusive_limit}: ${last(inconclusive)}`,
    };
  if (measurements.length < a.count) return { decision: 'continue' };
  if (passed === 0)
    return {
      decision: 'inconclusive',
      why: `analysis ${a.name} had no passing measurement in ${measurements.length}: ${last(measurements)}`,
    };
  return { decision: 'passed', why: `analysis ${a.name} passed ${passed} of ${measurements.length} measurement(s)` };
}

/** An analysis as a machine's own health gate takes it: bounds only (a machine has no baseline of its own). */
export function isBoundsOnly(a: Analysis): boolean {
  return a.baseline === undefined;
}
