/**
 * Two costs measured in turns (the first of each pair alternating), so a busy moment of the
 * machine falls on both: per pair the wall seconds and the CPU seconds of this process and
 * of the emulator, and the medians of their per-pair ratios. On shared cores a wall time can
 * double from one run to the next while CPU seconds move far less.
 */
import * as os from 'node:os';
import { cpuSecondsSince, median, processCpuSeconds, r3 } from './stats';

/** One measured run: wall seconds, CPU seconds of this process and of the emulator's. */
export interface Cost {
  readonly wall_s: number;
  readonly own_cpu_s: number;
  readonly emulator_cpu_s: number;
}

/** Runs `fn` and measures it. */
export async function measuredCost(emulatorPid: number, fn: () => Promise<unknown>): Promise<Cost> {
  const cpu = process.cpuUsage();
  const emulator = processCpuSeconds(emulatorPid);
  const t0 = performance.now();
  await fn();
  return {
    wall_s: (performance.now() - t0) / 1000,
    own_cpu_s: cpuSecondsSince(cpu),
    emulator_cpu_s: processCpuSeconds(emulatorPid) - emulator,
  };
}

/** The medians of `pairs` paired runs of `a` and `b` and of their ratios. */
export interface Paired {
  readonly pairs: number;
  readonly a: Cost;
  readonly b: Cost;
  /** Median of `a.wall_s / b.wall_s` per pair. */
  readonly wall_ratio: number;
  /** Median of the CPU seconds of both processes over `a` against those over `b`, per pair. */
  readonly cpu_ratio: number;
  /** Median of this process's CPU seconds over `a` against over `b`, per pair. */
  readonly own_cpu_ratio: number;
  /** The machine's one-minute load average after each pair. */
  readonly load_average: readonly number[];
}

const total = (c: Cost) => c.own_cpu_s + c.emulator_cpu_s;

function medianCost(costs: readonly Cost[]): Cost {
  return {
    wall_s: r3(median(costs.map((c) => c.wall_s))),
    own_cpu_s: r3(median(costs.map((c) => c.own_cpu_s))),
    emulator_cpu_s: r3(median(costs.map((c) => c.emulator_cpu_s))),
  };
}

/** Measures `a` and `b` in `pairs` turns, `a` first on even turns and last on odd ones. */
export async function paired(pairs: number, emulatorPid: number, a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<Paired> {
  const as: Cost[] = [];
  const bs: Cost[] = [];
  const load: number[] = [];
  for (let r = 0; r < pairs; r++) {
    if (r % 2 === 0) {
      as.push(await measuredCost(emulatorPid, a));
      bs.push(await measuredCost(emulatorPid, b));
    } else {
      bs.push(await measuredCost(emulatorPid, b));
      as.push(await measuredCost(emulatorPid, a));
    }
    load.push(Math.round((os.loadavg()[0] as number) * 100) / 100);
  }
  const ratio = (f: (c: Cost) => number) => r3(median(as.map((x, i) => f(x) / f(bs[i] as Cost))));
  return {
    pairs,
    a: medianCost(as),
    b: medianCost(bs),
    wall_ratio: ratio((c) => c.wall_s),
    cpu_ratio: ratio(total),
    own_cpu_ratio: ratio((c) => c.own_cpu_s),
    load_average: load,
  };
}
