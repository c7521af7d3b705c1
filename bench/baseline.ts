/**
 * bench/baseline.json: the figures committed in the repository, which every `npm run bench`
 * compares its ratios with (bench/ratios.ts) and the performance tables are generated from
 * (bench/docs.ts). It holds a run's results (bench/results.json's shape) and, for each of
 * its parts, when and on what machine they were measured. `--update-baseline` replaces the
 * parts a run measured and keeps the others.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** When a part of the baseline was measured, and how busy the machine was. */
export interface Measured {
  readonly date: string;
  readonly commit: string;
  /** The machine's load average (1, 5, 15 minutes) when the part ended. */
  readonly load_average: readonly number[];
  readonly cpu_cores: number;
}

export interface Baseline {
  /** By key of `results`. */
  readonly measured: Readonly<Record<string, Measured>>;
  readonly results: Readonly<Record<string, unknown>>;
}

export const BASELINE_FILE = path.join(__dirname, 'baseline.json');

export const EMPTY_BASELINE: Baseline = { measured: {}, results: {} };

/** The baseline with the parts `results` holds replaced by them, each marked as measured `at`. */
export function updatedBaseline(baseline: Baseline, results: Readonly<Record<string, unknown>>, at: Measured): Baseline {
  const measured = { ...baseline.measured };
  for (const key of Object.keys(results)) measured[key] = at;
  return { measured, results: { ...baseline.results, ...results } };
}

export function readBaseline(file = BASELINE_FILE): Baseline {
  if (!fs.existsSync(file)) return EMPTY_BASELINE;
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<Baseline>;
  return { measured: parsed.measured ?? {}, results: parsed.results ?? {} };
}

export function writeBaseline(baseline: Baseline, file = BASELINE_FILE): void {
  fs.writeFileSync(file, `${JSON.stringify(baseline, null, 2)}\n`);
}
