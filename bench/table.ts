/** One results row and the table that prints them. */
export type Row = {
  readonly size: number;
  readonly synth_s: number;
  readonly synth_peak_mb: number;
  /** cdktf's own cost for the same construct tree (synth-floor.ts), and synth over it. */
  readonly synth_floor_s: number;
  readonly synth_floor_peak_mb: number;
  readonly synth_to_floor: number;
  readonly synth_mb_to_floor: number;
  readonly plan_nochange_s: number;
  readonly plan_changed_s: number;
  readonly apply_changed_s: number;
  readonly floor_s: number;
  /** Median over paired turns of the plan's wall seconds over the floor's. */
  readonly plan_to_floor: number;
  /** Median over paired turns of the CPU seconds of fleetform and the emulator over the plan against over the floor. */
  readonly plan_to_floor_cpu?: number;
  readonly client_to_sdk: number;
  readonly peak_rss_mb: number;
};

const COLUMNS: ReadonlyArray<readonly [keyof Row, string]> = [
  ['size', 'machines'],
  ['synth_s', 'synth s'],
  ['synth_peak_mb', 'synth MB'],
  ['synth_floor_s', 'floor synth s'],
  ['synth_floor_peak_mb', 'floor synth MB'],
  ['synth_to_floor', 'synth/floor'],
  ['synth_mb_to_floor', 'MB/floor'],
  ['plan_nochange_s', 'plan s'],
  ['plan_changed_s', 'plan 10% s'],
  ['apply_changed_s', 'apply 10% s'],
  ['floor_s', 'floor s'],
  ['plan_to_floor', 'plan/floor'],
  ['plan_to_floor_cpu', 'plan/floor CPU'],
  ['client_to_sdk', 'ours/sdk'],
  ['peak_rss_mb', 'peak MB'],
];

/** A fixed-width text table: one line of headers, then one line per record. */
function formatColumns(
  columns: ReadonlyArray<readonly [string, string]>,
  records: ReadonlyArray<Readonly<Record<string, unknown>>>,
): string {
  const cells = [columns.map(([, h]) => h), ...records.map((r) => columns.map(([k]) => String(r[k] ?? '-')))];
  const widths = columns.map((_, i) => Math.max(...cells.map((c) => (c[i] as string).length)));
  const line = (c: readonly string[]) => c.map((v, i) => v.padStart(widths[i] as number)).join('  ');
  return [line(cells[0] as string[]), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

/** The results table: one line per fleet size. */
export function formatTable(rows: readonly Row[]): string {
  return formatColumns(COLUMNS, rows);
}

const DETAIL_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ['size', 'machines'],
  ['setup_apply_s', 'create all s'],
  ['write_floor_s', 'write floor s'],
  ['apply_to_write_floor', 'apply/wfloor'],
  ['sdk_reads_s', 'sdk reads s'],
  ['ours_batched_reads_s', 'our reads s'],
  ['engine_peak_rss_mb', 'engine MB'],
];

/** The second table: the apply's write floor, the read times behind ours/sdk, memory per process. */
export function formatDetails(details: ReadonlyArray<Readonly<Record<string, unknown>>>): string {
  return formatColumns(DETAIL_COLUMNS, details);
}

const LATENCY_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ['size', 'machines'],
  ['rtt_ms', 'RTT ms'],
  ['plan_s', 'plan s'],
  ['plan_goal_s', 'goal s'],
  ['meets', 'goal'],
  ['concurrency', 'in flight'],
  ['bound_s', 'bound s'],
  ['plan_to_bound', 'plan/bound'],
  ['apply_s', 'apply 10% s'],
  ['apply_bound_s', 'apply bound s'],
  ['apply_to_bound', 'apply/bound'],
];

/** Plan and apply at each round-trip time against calls x RTT / concurrency. */
export function formatLatency(rows: ReadonlyArray<Readonly<Record<string, unknown>>>): string {
  return formatColumns(
    LATENCY_COLUMNS,
    rows.map((r) => ({ ...r, meets: r.plan_meets_goal === undefined ? '-' : r.plan_meets_goal ? 'pass' : 'fail' })),
  );
}

const STATE_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ['size', 'machines'],
  ['local_plan_s', 'plan local s'],
  ['pg_plan_s', 'plan pg s'],
  ['pg_to_local', 'pg/local'],
  ['state_read_local_s', 'read local s'],
  ['state_read_pg_s', 'read pg s'],
  ['state_write_local_s', 'write local s'],
  ['state_write_pg_s', 'write pg s'],
  ['lock_local_s', 'lock local s'],
  ['lock_pg_s', 'lock pg s'],
  ['apply_changed_local_s', 'apply 10% local s'],
  ['apply_changed_pg_s', 'apply 10% pg s'],
  ['apply_pg_to_local', 'apply pg/local'],
];

/** The no-change plan, whole-state reads and writes, the lock and the 10% apply with each state backend. */
export function formatStateBackends(row: Readonly<Record<string, unknown>>): string {
  return formatColumns(STATE_COLUMNS, [row]);
}

const LARGE_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ['size', 'machines'],
  ['plan_s', 'plan s'],
  ['plan_read_stacks_s', 'reading stacks s'],
  ['plan_cpu_s', 'fleetform CPU s'],
  ['plan_emulator_cpu_s', 'emulator CPU s'],
  ['floor_s', 'floor s'],
  ['plan_to_floor_cpu', 'plan/floor CPU'],
  ['peak_rss_mb', 'fleetform MB'],
  ['emulator_peak_mb', 'emulator MB'],
];

/** A no-change plan of a large fleet: wall time, CPU of each process, the floor, peak memory. */
export function formatLarge(rows: ReadonlyArray<Readonly<Record<string, unknown>>>): string {
  return formatColumns(LARGE_COLUMNS, rows);
}
