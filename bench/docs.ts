/**
 * The performance tables, generated from the committed figures (bench/baseline.json), never
 * typed: each table of docs/performance.md lies between `<!-- bench:table:NAME:start -->` and
 * `<!-- bench:table:NAME:end -->`, README.md's summary between `<!-- bench:summary:start -->`
 * and `<!-- bench:summary:end -->`. `npm run bench:docs` writes them; a test compares the
 * committed files with what this generates.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readBaseline, type Baseline, type Measured } from './baseline';
import { ratiosOf } from './ratios';

type Fields = Readonly<Record<string, unknown>>;

const ROOT = path.join(__dirname, '..');
export const PERFORMANCE_DOC = path.join(ROOT, 'docs', 'performance.md');
export const README = path.join(ROOT, 'README.md');

function records(value: unknown): Fields[] {
  return Array.isArray(value) ? (value as Fields[]) : [];
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Seconds as the tables show them: two significant decimals under 10 s, one above. */
export function seconds(v: unknown): string {
  const x = num(v);
  if (x === undefined) return '';
  return `${x < 0.1 ? x.toFixed(3) : x < 10 ? x.toFixed(2) : x.toFixed(1)} s`;
}

export function times(v: unknown): string {
  const x = num(v);
  return x === undefined ? '' : `${x.toFixed(2)}x`;
}

function megabytes(v: unknown): string {
  const x = num(v);
  return x === undefined ? '' : `${Math.round(x)} MB`;
}

function machines(v: unknown): string {
  const x = num(v);
  return x === undefined ? '' : x.toLocaleString('en-US');
}

/** A Markdown table, its columns padded as Prettier writes them. */
export function markdownTable(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = headers.map((h, i) => Math.max(3, h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

function measuredLine(m: Measured | undefined): string {
  if (!m) return 'Not measured yet: `npm run bench -- --update-baseline` records it.';
  return `Measured ${m.date} UTC at ${m.commit} on ${m.cpu_cores} cores, load average ${m.load_average.join(', ')} when it ended.`;
}

function sizesTable(b: Baseline): string {
  const details = new Map(records(b.results.details).map((d) => [d.size, d]));
  const rows = records(b.results.rows).map((r) => {
    const d = details.get(r.size);
    return [
      machines(r.size),
      seconds(r.synth_s),
      seconds(r.synth_floor_s),
      seconds(r.plan_nochange_s),
      seconds(r.plan_changed_s),
      seconds(r.apply_changed_s),
      seconds(r.floor_s),
      times(r.plan_to_floor),
      times(r.plan_to_floor_cpu),
      times(r.client_to_sdk),
      times(d?.apply_to_write_floor),
      megabytes(r.peak_rss_mb),
    ];
  });
  const table = markdownTable(
    [
      'machines',
      'synth',
      "cdktf's own synth",
      'plan, no changes',
      'plan, 10% changed',
      'apply of the 10%',
      'bare reads (floor)',
      'plan / floor',
      'plan / floor (CPU)',
      "our reads / SDK's",
      'apply / its writes',
      'peak memory',
    ],
    rows,
  );
  return `${table}\n\n${measuredLine(b.measured.rows)}`;
}

function largeTable(b: Baseline): string {
  const rows = records(b.results.large).map((r) => [
    machines(r.size),
    seconds(r.plan_s),
    seconds(r.plan_read_stacks_s),
    seconds(r.plan_cpu_s),
    seconds(r.plan_emulator_cpu_s),
    seconds(r.floor_s),
    times(r.plan_to_floor_cpu),
    megabytes(r.peak_rss_mb),
    megabytes(r.heap_used_mb),
    megabytes(r.emulator_peak_mb),
    seconds(r.seed_s),
  ]);
  const table = markdownTable(
    [
      'machines',
      'plan, no changes',
      'of it reading the stack',
      'fleetform CPU',
      'emulator CPU',
      'bare reads (floor)',
      'plan / floor (CPU)',
      'fleetform peak',
      'heap at its end',
      'emulator peak',
      'fleet copied in',
    ],
    rows,
  );
  return `${table}\n\n${measuredLine(b.measured.large)}`;
}

function latencyTable(b: Baseline): string {
  const rows = records(b.results.latency).map((r) => [
    machines(r.size),
    `${String(r.rtt_ms)} ms`,
    seconds(r.plan_s),
    r.plan_goal_s === undefined ? '' : `${seconds(r.plan_goal_s)}: ${r.plan_meets_goal ? 'pass' : 'fail'}`,
    String(r.concurrency ?? ''),
    seconds(r.apply_s),
    seconds(r.apply_bound_s),
    num(r.apply_to_bound) ? times(r.apply_to_bound) : '',
  ]);
  const table = markdownTable(
    ['machines', 'RTT', 'plan, no changes', 'goal', 'in flight', 'apply of 10%', 'its bound', 'apply / bound'],
    rows,
  );
  return `${table}\n\n${measuredLine(b.measured.latency)}`;
}

/** Every ratio the baseline holds: what `npm run bench` compares its own with. */
function ratiosTable(b: Baseline): string {
  const rows = ratiosOf(b.results).map((r) => [`\`${r.name}\``, String(r.value), r.better]);
  return markdownTable(['ratio', 'committed', 'better'], rows);
}

/** The README's few lines: what a plan costs, and where the rest is. */
function summary(b: Baseline): string {
  const rows = records(b.results.rows);
  const load = (m: Measured | undefined) => (m ? ` (load average ${m.load_average[0]} when measured)` : '');
  const plans = rows.map((r) => `${seconds(r.plan_nochange_s)} for ${machines(r.size)} machines`).join(', ');
  const cpu = rows.map((r) => `${times(r.plan_to_floor_cpu)} at ${machines(r.size)}`).join(', ');
  const sdk = rows.map((r) => `${times(r.client_to_sdk)} at ${machines(r.size)}`).join(', ');
  const largest = records(b.results.large).at(-1);
  return [
    `A no-change plan on loopback took ${plans || 'nothing measured yet'}, on two cores shared with other work${load(b.measured.rows)}.`,
    `In CPU seconds of fleetform and the emulator it costs ${cpu || '-'} what reading every part once costs; our reads are ${sdk || '-'} as fast as the official SDK's.`,
    ...(largest
      ? [
          `${machines(largest.size)} machines: a plan of ${seconds(largest.plan_s)}${load(b.measured.large)}, ${seconds(largest.plan_cpu_s)} of fleetform's CPU and ${seconds(largest.plan_emulator_cpu_s)} of the emulator's, ${megabytes(largest.peak_rss_mb)} at its peak.`,
        ]
      : []),
    'Figures, how they grow and how each is measured: [docs/performance.md](docs/performance.md); `npm run bench -- --check` fails on a ratio a tenth worse than the committed one.',
  ].join('\n');
}

/** The generated blocks by marker name (`summary` is README.md's). */
export function renderBlocks(b: Baseline): Record<string, string> {
  return { sizes: sizesTable(b), large: largeTable(b), latency: latencyTable(b), ratios: ratiosTable(b), summary: summary(b) };
}

function markers(name: string): [string, string] {
  return name === 'summary'
    ? ['<!-- bench:summary:start -->', '<!-- bench:summary:end -->']
    : [`<!-- bench:table:${name}:start -->`, `<!-- bench:table:${name}:end -->`];
}

/** `text` with each marked block it holds replaced by its generated content; a marked name without content is an error. */
export function fillMarkers(text: string, blocks: Readonly<Record<string, string>>): string {
  let out = text;
  for (const match of text.matchAll(/<!-- bench:(?:table:([\w-]+)|(summary)):start -->/g)) {
    const name = (match[1] ?? match[2]) as string;
    const content = blocks[name];
    if (content === undefined) throw new Error(`no generated block named ${name}; blocks: ${Object.keys(blocks).join(', ')}`);
    const [start, end] = markers(name);
    const from = out.indexOf(start);
    const to = out.indexOf(end, from);
    if (to < 0) throw new Error(`${start} has no ${end}`);
    out = `${out.slice(0, from + start.length)}\n\n${content}\n\n${out.slice(to)}`;
  }
  return out;
}

function main(): void {
  const blocks = renderBlocks(readBaseline());
  for (const file of [PERFORMANCE_DOC, README]) {
    const text = fs.readFileSync(file, 'utf8');
    const filled = fillMarkers(text, blocks);
    if (filled !== text) fs.writeFileSync(file, filled);
    process.stdout.write(`${path.relative(process.cwd(), file)}: ${filled === text ? 'as generated' : 'written'}\n`);
  }
}

if (require.main === module) main();
