/**
 * Synthesizes the benchmark fleet in a process of its own, as `fleetform plan` runs the
 * app in a child process: `synth-child.ts OUTDIR SIZE REVISION RUNS [unchecked]` synthesizes RUNS
 * times into OUTDIR (`unchecked`: an app made with `skipValidation`) and prints one JSON line `{ seconds: number[], cpu_seconds: number[], peak_rss_mb }`
 * (`cpu_seconds`: the process's CPU time over each synth, its GC and compiler threads
 * included: steadier than `seconds` when the machine's cores are shared).
 */
import { synthFleet } from './fleet';
import { cpuSecondsSince, runMain, timed } from './stats';

async function main(): Promise<void> {
  const [outdir, size, revision, runs, mode] = process.argv.slice(2);
  const seconds: number[] = [];
  const cpuSeconds: number[] = [];
  for (let r = 0; r < Number(runs ?? 1); r++) {
    const cpu = process.cpuUsage();
    seconds.push(await timed(() => synthFleet(outdir as string, Number(size), Number(revision), mode === 'unchecked')));
    cpuSeconds.push(cpuSecondsSince(cpu));
  }
  process.stdout.write(
    `${JSON.stringify({ seconds, cpu_seconds: cpuSeconds, peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024) })}\n`,
  );
}

runMain(main);
