/** One results row and the table that prints them. */
export interface Row {
  readonly size: number;
  readonly synth_s: number;
  readonly plan_nochange_s: number;
  readonly plan_changed_s: number;
  readonly apply_changed_s: number;
  readonly floor_s: number;
  readonly plan_to_floor: number;
  readonly client_to_sdk: number;
  readonly peak_rss_mb: number;
}

const COLUMNS: ReadonlyArray<readonly [keyof Row, string]> = [
  ['size', 'machines'],
  ['synth_s', 'synth s'],
  ['plan_nochange_s', 'plan s'],
  ['plan_changed_s', 'plan 10% s'],
  ['apply_changed_s', 'apply 10% s'],
  ['floor_s', 'floor s'],
  ['plan_to_floor', 'plan/floor'],
  ['client_to_sdk', 'ours/sdk'],
  ['peak_rss_mb', 'peak MB'],
];

/** A fixed-width text table of the rows. */
export function formatTable(rows: readonly Row[]): string {
  const cells = [COLUMNS.map(([, h]) => h), ...rows.map((r) => COLUMNS.map(([k]) => String(r[k])))];
  const widths = COLUMNS.map((_, i) => Math.max(...cells.map((c) => (c[i] as string).length)));
  const line = (c: readonly string[]) => c.map((v, i) => v.padStart(widths[i] as number)).join('  ');
  return [line(cells[0] as string[]), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}
