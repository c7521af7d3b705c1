/**
 * Synthesizes the benchmark fleet in a process of its own, as `fleetform plan` runs the
 * app in a child process: `synth-child.ts OUTDIR SIZE REVISION RUNS` synthesizes RUNS
 * times into OUTDIR and prints one JSON line `{ seconds: number[], peak_rss_mb }`.
 */
import { synthFleet } from './fleet';
import { runMain, timed } from './stats';

async function main(): Promise<void> {
  const [outdir, size, revision, runs] = process.argv.slice(2);
  const seconds: number[] = [];
  for (let r = 0; r < Number(runs ?? 1); r++) seconds.push(await timed(() => synthFleet(outdir as string, Number(size), Number(revision))));
  process.stdout.write(`${JSON.stringify({ seconds, peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024) })}\n`);
}

runMain(main);
