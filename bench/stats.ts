/** Timing helpers: median of runs, seconds with three decimals, a process's CPU time. */
import * as fs from 'node:fs';
import { PerformanceObserver, constants as perfConstants, type PerformanceEntry } from 'node:perf_hooks';

/** The median of the values (mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** Runs `fn` and returns its duration in seconds. */
export async function timed(fn: () => Promise<unknown> | unknown): Promise<number> {
  const t0 = performance.now();
  await fn();
  return (performance.now() - t0) / 1000;
}

/** CPU seconds (user and system, every thread of the process) since `start` (a `process.cpuUsage()`). */
export function cpuSecondsSince(start: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1e6;
}

/** Median duration (s) of `runs` runs of `fn`. */
export async function medianOf(runs: number, fn: (run: number) => Promise<unknown> | unknown): Promise<number> {
  const times: number[] = [];
  for (let r = 0; r < runs; r++) times.push(await timed(() => fn(r)));
  return median(times);
}

/** Rounds to three decimals. */
export const r3 = (x: number): number => Math.round(x * 1000) / 1000;

/** Runs `task` over `items` with at most `limit` in flight. */
export async function pool<T>(items: readonly T[], limit: number, task: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** Runs a benchmark process's main: exit 0 when it resolves, else the error on stderr and exit 1. */
export function runMain(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}

/** CPU seconds (user and system) a process has used so far, read from /proc (Linux). */
export function processCpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticksPerSecond = 100;
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

/** CPU seconds of the children this process has waited for (user and system), read from /proc (Linux). */
export function childrenCpuSeconds(): number {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

/** Garbage collections of this process by kind: how many and their milliseconds. */
export interface GcTally {
  readonly minor: { count: number; ms: number };
  readonly major: { count: number; ms: number };
  readonly other: { count: number; ms: number };
}

/** Counts this process's garbage collections from now on; `since()` gives the tally since the last call (or the start). */
export function gcCounter(): { since(): GcTally; stop(): void } {
  const fresh = (): GcTally => ({ minor: { count: 0, ms: 0 }, major: { count: 0, ms: 0 }, other: { count: 0, ms: 0 } });
  let tally = fresh();
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      const slot =
        kind === perfConstants.NODE_PERFORMANCE_GC_MINOR
          ? tally.minor
          : kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR
            ? tally.major
            : tally.other;
      slot.count += 1;
      slot.ms += entry.duration;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    since() {
      const rounded = (s: { count: number; ms: number }) => ({ count: s.count, ms: Math.round(s.ms) });
      const out = { minor: rounded(tally.minor), major: rounded(tally.major), other: rounded(tally.other) };
      tally = fresh();
      return out;
    },
    stop: () => observer.disconnect(),
  };
}
