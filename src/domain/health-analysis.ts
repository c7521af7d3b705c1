/**
 * A machine's own health analysis (`health_analysis`): the analyses its create and update
 * run once it passed its health gate, with bounds only (a machine alone has no baseline).
 * Each analysis is a map of strings under its name, its keys those of the analysis and its
 * metric: `{ metric = "log_rate", level = "error", max = "5", interval = "20s", count = "3" }`.
 * The keys come from the analysis's own schema, so the two forms never disagree.
 */
import { z } from 'zod';
import { formatGoDuration, parseGoDuration } from './duration';
import {
  AnalysisSchema,
  DEFAULT_ANALYSIS_COUNT,
  DEFAULT_ANALYSIS_INTERVAL_MS,
  MetricSchema,
  type Analysis,
  type Metric,
} from './rollout-analysis';

export const healthAnalysisSchema = z.record(z.string().min(1), z.record(z.string(), z.string()));
export type HealthAnalysisAttribute = z.infer<typeof healthAnalysisSchema>;

type MetricKind = Metric['kind'];

/** Each metric kind's own keys (besides `kind`, written `metric`), in the order of its schema. */
const METRIC_KEYS = new Map<MetricKind, readonly string[]>(
  MetricSchema.options.map((o) => [o.shape.kind.value, Object.keys(o.shape).filter((k) => k !== 'kind')]),
);

function metricKeys(kind: MetricKind): readonly string[] {
  return METRIC_KEYS.get(kind) ?? [];
}

export const METRIC_KINDS: readonly MetricKind[] = [...METRIC_KEYS.keys()];

/** The analysis's numeric keys as written in the map (`interval` is a duration in place of `interval_ms`). */
const NUMBER_KEYS = ['min', 'max'] as const;
const COUNT_KEYS = ['count', 'failure_limit', 'inconclusive_limit', 'min_machines'] as const;

/** Every key an analysis's map takes, whatever its metric. */
export const HEALTH_ANALYSIS_KEYS: readonly string[] = [
  'metric',
  ...new Set([...METRIC_KEYS.values()].flat()),
  ...NUMBER_KEYS,
  'interval',
  ...COUNT_KEYS,
];

/** Each metric kind with its own keys, for descriptions: `reading: \`resource\`, \`api\`, ...; log_rate: ...`. */
export function metricKeysText(): string {
  return METRIC_KINDS.map(
    (k) =>
      `${k}: ${
        metricKeys(k)
          .map((key) => `\`${key}\``)
          .join(', ') || 'none'
      }`,
  ).join('; ');
}

/** An analysis's own fields the map holds otherwise: `name` is its key, `interval_ms` its `interval`; a baseline needs a rollout. */
export const NOT_IN_HEALTH_ANALYSIS = ['name', 'metric', 'baseline', 'interval_ms'] as const;

/** The map of analyses (bounds only) as the attribute holds them; defaults are left out. */
export function healthAnalysisAttribute(analyses: readonly Analysis[]): HealthAnalysisAttribute {
  const out: HealthAnalysisAttribute = {};
  for (const a of analyses) {
    const entry: Record<string, string> = { metric: a.metric.kind };
    for (const [k, v] of Object.entries(a.metric)) if (k !== 'kind' && v !== undefined) entry[k] = String(v);
    for (const k of NUMBER_KEYS) if (a[k] !== undefined) entry[k] = String(a[k]);
    if (a.interval_ms !== DEFAULT_ANALYSIS_INTERVAL_MS) entry.interval = formatGoDuration(a.interval_ms);
    if (a.count !== DEFAULT_ANALYSIS_COUNT) entry.count = String(a.count);
    if (a.failure_limit !== 0) entry.failure_limit = String(a.failure_limit);
    if (a.inconclusive_limit !== 0) entry.inconclusive_limit = String(a.inconclusive_limit);
    if (a.min_machines !== 1) entry.min_machines = String(a.min_machines);
    out[a.name] = entry;
  }
  return out;
}

/** A problem of one key: `picks.max` (or `picks` for the analysis as a whole). */
export interface HealthAnalysisProblem {
  readonly key: string;
  readonly message: string;
}

function readNumber(text: string, integer: boolean): number | undefined {
  if (!/^-?\d+(\.\d+)?$/.test(text.trim())) return undefined;
  const n = Number(text);
  return integer && (!Number.isInteger(n) || n < 0) ? undefined : n;
}

/** One analysis from its map; the problems name its keys. */
function parseOne(name: string, raw: Readonly<Record<string, string>>, problems: HealthAnalysisProblem[]): Analysis | undefined {
  const before = problems.length;
  const problem = (key: string, message: string): void => void problems.push({ key: `${name}.${key}`, message });
  const kind = raw.metric as MetricKind | undefined;
  if (kind === undefined || !METRIC_KINDS.includes(kind)) {
    problem('metric', `${kind === undefined ? 'missing' : JSON.stringify(kind)}: the metric is one of ${METRIC_KINDS.join(', ')}`);
    return undefined;
  }
  const own = metricKeys(kind);
  for (const key of Object.keys(raw)) {
    if (key === 'baseline' || key.startsWith('baseline'))
      problem(key, "a machine's health analysis has no baseline (only a rollout knows the machines not yet written): give min or max");
    else if (!HEALTH_ANALYSIS_KEYS.includes(key))
      problem(key, `unknown key ${JSON.stringify(key)}: an analysis takes ${HEALTH_ANALYSIS_KEYS.join(', ')}`);
    else if (METRIC_KINDS.some((k) => metricKeys(k).includes(key)) && !own.includes(key))
      problem(key, `a ${kind} metric takes ${own.length > 0 ? own.join(', ') : 'no key of its own'}, not ${key}`);
  }
  const metric: Record<string, string> = { kind, ...(kind === 'reading' ? { method: 'Readings' } : {}) };
  for (const key of own) if (raw[key] !== undefined) metric[key] = raw[key];
  const numbers: Record<string, number> = {};
  for (const key of [...NUMBER_KEYS, ...COUNT_KEYS]) {
    const text = raw[key];
    if (text === undefined) continue;
    const n = readNumber(text, (COUNT_KEYS as readonly string[]).includes(key));
    if (n === undefined)
      problem(
        key,
        `${JSON.stringify(text)} is not ${(COUNT_KEYS as readonly string[]).includes(key) ? 'a whole number from 0' : 'a number'}`,
      );
    else numbers[key] = n;
  }
  let intervalMs = DEFAULT_ANALYSIS_INTERVAL_MS;
  if (raw.interval !== undefined) {
    const ms = parseGoDuration(raw.interval);
    if (ms === undefined || ms <= 0)
      problem('interval', `${JSON.stringify(raw.interval)} is not a duration above zero (write it like 20s or 1m)`);
    else intervalMs = Math.round(ms);
  }
  if (problems.length > before) return undefined;
  const parsed = AnalysisSchema.safeParse({
    name,
    metric,
    ...numbers,
    interval_ms: intervalMs,
    count: numbers.count ?? DEFAULT_ANALYSIS_COUNT,
    failure_limit: numbers.failure_limit ?? 0,
    inconclusive_limit: numbers.inconclusive_limit ?? 0,
    min_machines: numbers.min_machines ?? 1,
  });
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) {
    const field = issue.path.filter((p) => p !== 'metric').join('.');
    const message = field === '' ? 'an analysis needs a bound: min or max' : issue.message;
    problems.push({ key: field === '' ? name : `${name}.${field}`, message });
  }
  return undefined;
}

/** Reads a `health_analysis` map into analyses, in the order of their names; the problems name the key. */
export function parseHealthAnalysis(raw: Readonly<Record<string, Readonly<Record<string, string>>>>): {
  analyses: Analysis[];
  problems: HealthAnalysisProblem[];
} {
  const problems: HealthAnalysisProblem[] = [];
  const analyses: Analysis[] = [];
  for (const name of Object.keys(raw).sort()) {
    const a = parseOne(name, raw[name] ?? {}, problems);
    if (a) analyses.push(a);
  }
  return { analyses: problems.length > 0 ? [] : analyses, problems };
}
