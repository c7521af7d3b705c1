/**
 * Metrics a rollout's analysis measures on a wave's machines (`Metric.reading`,
 * `Metric.logRate`, `Metric.jobFailures`, `Metric.moduleFailures`), and the analysis
 * entries as a `Rollout` (or a machine's `healthGate`) takes them.
 */
import { z } from 'zod';
import { FleetformError } from '../domain/errors';
import { parseGoDuration } from '../domain/duration';
import {
  AnalysisSchema,
  DEFAULT_ANALYSIS_COUNT,
  DEFAULT_ANALYSIS_INTERVAL_MS,
  MetricSchema,
  READING_AGGREGATE_PATTERN,
  type Analysis,
  type LogLevel,
  type Metric as MetricSpec,
} from '../domain/rollout-analysis';

/** A metric as an analysis takes it; made by the {@link Metric} functions. */
export type MetricValue = MetricSpec;

/** The metrics a rollout's analysis can measure. */
export const Metric = {
  /**
   * An aggregate of a captured reading's field (the data manager's tabular data of the
   * resource's `method`, default `Readings`): `mean`, `min`, `max`, `count`, `rate` (the
   * field's change a minute) or a percentile `p50`..`p99`.
   */
  reading(props: {
    readonly resource: string;
    /** The resource's API. @default 'rdk:component:sensor' */
    readonly api?: string;
    readonly method?: string;
    readonly field: string;
    readonly aggregate: 'mean' | 'min' | 'max' | 'count' | 'rate' | `p${number}`;
  }): MetricValue {
    return MetricSchema.parse({ kind: 'reading', method: 'Readings', ...props });
  },
  /** The part's log lines a minute at a level (or any level), or whose message contains `pattern`. */
  logRate(props: { readonly level?: LogLevel; readonly pattern?: string } = {}): MetricValue {
    return MetricSchema.parse({ kind: 'log_rate', ...props });
  },
  /** The failed runs of a job of the machine's config in the window (its `GetMachineStatus` job statuses). */
  jobFailures(props: { readonly job: string }): MetricValue {
    return MetricSchema.parse({ kind: 'job_failures', ...props });
  },
  /** The highest `consecutive_failures` of a module (or of any module) the machine reports. */
  moduleFailures(props: { readonly module?: string } = {}): MetricValue {
    return MetricSchema.parse({ kind: 'module_failures', ...props });
  },
} as const;

/** One analysis of a rollout: a metric and its success condition, measured `count` times every `interval`. */
export interface AnalysisProps {
  readonly name: string;
  readonly metric: MetricValue;
  /** Every reporting machine's value at least this. */
  readonly min?: number;
  /** Every reporting machine's value at most this. */
  readonly max?: number;
  /** The wave's value against that of the rollout's machines not yet written, over the same window. */
  readonly baseline?: { readonly minRatio?: number; readonly maxRatio?: number };
  /** How often a measurement is taken, each over the interval before it. @default '1m' */
  readonly interval?: string;
  /** Measurements to take. @default 1 */
  readonly count?: number;
  /** Failed measurements tolerated. @default 0 */
  readonly failureLimit?: number;
  /** Inconclusive measurements (no data, too few machines reporting) tolerated. @default 0 */
  readonly inconclusiveLimit?: number;
  /** The fewest machines that must report on each side. @default 1 */
  readonly minMachines?: number;
}

const metricCheck = z.custom<MetricValue>((x) => MetricSchema.safeParse(x).success, 'expected a Metric (Metric.reading(...), ...)');

/** The run-time check of {@link AnalysisProps}. */
export const analysisPropsSchema = z.strictObject({
  name: z.string().min(1),
  metric: metricCheck,
  min: z.number().optional(),
  max: z.number().optional(),
  baseline: z.strictObject({ minRatio: z.number().nonnegative().optional(), maxRatio: z.number().nonnegative().optional() }).optional(),
  interval: z.string().optional(),
  count: z.number().int().positive().optional(),
  failureLimit: z.number().int().nonnegative().optional(),
  inconclusiveLimit: z.number().int().nonnegative().optional(),
  minMachines: z.number().int().positive().optional(),
});

/** The analyses as synthesized; `where` names the construct in errors (`path`) and the field (`field`). */
export function analysisPolicy(props: readonly AnalysisProps[], where: { path: string; field: string }): Analysis[] {
  const names = new Set<string>();
  return props.map((p, i) => {
    const field = `${where.field}[${i}]`;
    if (names.has(p.name))
      throw new FleetformError(`${field}: another analysis is named ${JSON.stringify(p.name)}`, {
        path: where.path,
        hint: 'give each analysis its own name',
      });
    names.add(p.name);
    const intervalMs = p.interval === undefined ? DEFAULT_ANALYSIS_INTERVAL_MS : parseGoDuration(p.interval);
    if (intervalMs === undefined || intervalMs <= 0)
      throw new FleetformError(`${field}.interval is not a duration above zero: ${JSON.stringify(p.interval)}`, {
        path: where.path,
        hint: "write a duration like '20s' or '1m'",
      });
    if (p.metric.kind === 'reading' && !READING_AGGREGATE_PATTERN.test(p.metric.aggregate))
      throw new FleetformError(`${field}.metric.aggregate is not an aggregate: ${JSON.stringify(p.metric.aggregate)}`, {
        path: where.path,
        hint: 'use mean, min, max, count, rate or pNN (p50, p95, p99)',
      });
    const analysis = {
      name: p.name,
      metric: p.metric,
      ...(p.min === undefined ? {} : { min: p.min }),
      ...(p.max === undefined ? {} : { max: p.max }),
      ...(p.baseline === undefined
        ? {}
        : {
            baseline: {
              ...(p.baseline.minRatio === undefined ? {} : { min_ratio: p.baseline.minRatio }),
              ...(p.baseline.maxRatio === undefined ? {} : { max_ratio: p.baseline.maxRatio }),
            },
          }),
      interval_ms: Math.round(intervalMs),
      count: p.count ?? DEFAULT_ANALYSIS_COUNT,
      failure_limit: p.failureLimit ?? 0,
      inconclusive_limit: p.inconclusiveLimit ?? 0,
      min_machines: p.minMachines ?? 1,
    };
    const parsed = AnalysisSchema.safeParse(analysis);
    if (!parsed.success)
      throw new FleetformError(`${field}: ${parsed.error.issues.map((x) => x.message).join('; ')}`, {
        path: where.path,
        hint: 'give it a bound (min, max) or a baseline ({ minRatio } or { maxRatio })',
      });
    return parsed.data;
  });
}
