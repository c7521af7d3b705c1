/**
 * The ratios a bench run measures, named, and how each compares with the committed figures
 * (bench/baseline.json). A ratio sets one measured cost against another taken at the same
 * moment of the machine (plan against bare reads, synth against cdktf's own, an apply against
 * its round trips), so it moves far less with the machine's load than a time does; the
 * reconciler's CPU seconds per check are compared as well. Pure functions: run.ts acts on them.
 */

/** Which way a figure improves. */
export type Better = 'lower' | 'higher';

/** One named figure of a run. */
export interface Ratio {
  readonly name: string;
  readonly value: number;
  readonly better: Better;
}

/** How far a figure may move from its committed value before it is reported: a tenth. */
export const TOLERANCE = 0.1;

export type Verdict = 'worse' | 'better' | 'same' | 'new';

/** A figure of this run against its committed value. */
export interface Comparison {
  readonly name: string;
  readonly better: Better;
  readonly current: number;
  readonly baseline?: number;
  /** `current / baseline - 1` (0 for a new figure). */
  readonly change: number;
  readonly verdict: Verdict;
}

type Results = Readonly<Record<string, unknown>>;
type Fields = Readonly<Record<string, unknown>>;

function records(value: unknown): Fields[] {
  return Array.isArray(value) ? value.filter((v): v is Fields => typeof v === 'object' && v !== null) : [];
}

function record(value: unknown): Fields | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : undefined;
}

/** Each listed field of `fields` that holds a positive number, named `prefix.field`. */
function pick(prefix: string, fields: Fields | undefined, wanted: ReadonlyArray<readonly [string, Better]>): Ratio[] {
  if (!fields) return [];
  return wanted.flatMap(([field, better]) => {
    const value = fields[field];
    return typeof value === 'number' && Number.isFinite(value) && value > 0 ? [{ name: `${prefix}.${field}`, value, better }] : [];
  });
}

const SIZE_RATIOS = [
  ['plan_to_floor', 'lower'],
  ['plan_to_floor_cpu', 'lower'],
  ['synth_to_floor', 'lower'],
  ['synth_mb_to_floor', 'lower'],
  ['client_to_sdk', 'higher'],
] as const;

const LATENCY_RATIOS = [
  ['plan_to_bound', 'lower'],
  ['apply_to_bound', 'lower'],
] as const;

/** Every ratio `results` (bench/results.json's shape) holds, by name. */
export function ratiosOf(results: Results): Ratio[] {
  return [
    ...records(results.rows).flatMap((row) => pick(`sizes.${String(row.size)}`, row, SIZE_RATIOS)),
    ...records(results.details).flatMap((d) => pick(`sizes.${String(d.size)}`, d, [['apply_to_write_floor', 'lower']])),
    ...records(results.large).flatMap((d) => pick(`large.${String(d.size)}`, d, [['plan_to_floor_cpu', 'lower']])),
    ...records(results.latency).flatMap((row) => pick(`latency.${String(row.size)}.${String(row.rtt_ms)}ms`, row, LATENCY_RATIOS)),
    ...pick('state_backends', record(results.state_backends), [
      ['pg_to_local', 'lower'],
      ['apply_pg_to_local', 'lower'],
    ]),
    ...pick('provider', record(results.provider), [['terraform_to_fleetform', 'lower']]),
    ...pick('rollout', record(results.rollout), [['ratio', 'lower']]),
    ...pick('rollout_analysis', record(results.rollout_analysis), [
      ['ratio', 'lower'],
      ['measurement_cpu_s', 'lower'],
    ]),
    ...pick('fragments', record(results.fragments), [['ratio', 'lower']]),
    ...pick('reconcile', record(results.reconcile), [['own_cpu_s_per_check', 'lower']]),
  ];
}

/** One figure against its committed value: worse or better when it moved by more than `tolerance` of it. */
export function compareRatio(current: Ratio, baseline: number | undefined, tolerance = TOLERANCE): Comparison {
  const { name, better, value } = current;
  if (baseline === undefined) return { name, better, current: value, change: 0, verdict: 'new' };
  // Rounded, so a ratio exactly a tenth away is within it despite the division's last bit.
  const change = Math.round((value / baseline - 1) * 1e9) / 1e9;
  const grew = change > tolerance;
  const shrank = change < -tolerance;
  const verdict: Verdict = !grew && !shrank ? 'same' : grew === (better === 'lower') ? 'worse' : 'better';
  return { name, better, current: value, baseline, change, verdict };
}

/** Every ratio of `current` against the same ratio of `baseline` (both bench/results.json's shape). */
export function compareResults(baseline: Results, current: Results, tolerance = TOLERANCE): Comparison[] {
  const committed = new Map(ratiosOf(baseline).map((r) => [r.name, r.value]));
  return ratiosOf(current).map((r) => compareRatio(r, committed.get(r.name), tolerance));
}

/** The comparisons that fail a check: a figure worse by more than the tolerance. */
export function worse(comparisons: readonly Comparison[]): Comparison[] {
  return comparisons.filter((c) => c.verdict === 'worse');
}

const percent = (x: number) => `${x > 0 ? '+' : ''}${(x * 100).toFixed(0)}%`;

/** The lines a run prints: each figure that moved by more than the tolerance, worse or better, and the new ones. */
export function formatComparisons(comparisons: readonly Comparison[]): string {
  const moved = comparisons.filter((c) => c.verdict !== 'same');
  if (moved.length === 0) return `all ${comparisons.length} ratios within a tenth of bench/baseline.json`;
  const lines = moved.map((c) =>
    c.baseline === undefined
      ? `  new     ${c.name} = ${c.current} (not in bench/baseline.json)`
      : `  ${c.verdict.padEnd(7)} ${c.name}: ${c.current} against ${c.baseline} (${percent(c.change)}, ${c.better} is better)`,
  );
  const same = comparisons.length - moved.length;
  return [`ratios against bench/baseline.json (${same} within a tenth):`, ...lines].join('\n');
}
