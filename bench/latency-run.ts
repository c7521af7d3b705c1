/**
 * Plan and apply at a distance: one fleet size, applied once on loopback, then planned (no
 * changes) and applied (a 10% change) through a proxy that adds each round-trip time, with
 * reads following the network up to `--read-parallelism`. The bound a run is held against
 * is `calls x RTT / concurrency`: the plan's concurrency is the most reads the engine kept
 * in flight, the apply's its write parallelism. The goal a no-change plan is held to at
 * each RTT is 1.3 times the same plan on loopback plus four round trips (0 ms is always
 * measured first). With `--baseline START/MAX`, each plan run is paired with one by an
 * engine whose reads start at START and stop at MAX (e.g. 10/64), through the same proxy
 * and client, the two taking turns: a before/after on the same machine at the same moment.
 * Prints one JSON line.
 * Usage: latency-run.ts SIZE [--rtts 0,20,80] [--runs N] [--parallelism N] [--read-parallelism N] [--baseline START/MAX] [--mbps N]
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createServiceClient } from '../src/api/client';
import { Engine, READ_LIMIT_START } from '../src/engine/engine';
import { defaultKinds } from '../src/engine/kinds';
import { FLEET_STACK } from './fleet';
import { spawnLatencyProxy } from './latency-proxy';
import { openSession, planAndApply, planOnce, READ_PARALLELISM, type LoadStacks } from './session';
import { median, processCpuSeconds, r3, runMain, timed } from './stats';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i > 0 ? (process.argv[i + 1] as string) : fallback;
}

export interface LatencyRow {
  readonly size: number;
  readonly rtt_ms: number;
  readonly plan_s: number;
  readonly bound_s: number;
  readonly plan_to_bound: number;
  readonly concurrency: number;
  readonly plan_calls: number;
  /** Mean time from sending a plan read to its answer, as the engine saw it (RTT plus both ends' work and queueing). */
  readonly read_latency_ms: number;
  /** CPU seconds per process over the plan (the median run): fleetform, the emulator, the proxy. */
  readonly plan_cpu_s: { readonly fleetform: number; readonly emulator: number; readonly proxy: number };
  readonly apply_s: number;
  readonly apply_calls: number;
  readonly apply_bound_s: number;
  readonly apply_to_bound: number;
  readonly apply_concurrency: number;
  /** 1.3 x the plan on loopback + 4 x RTT: what a no-change plan at this RTT may take. */
  readonly plan_goal_s: number;
  readonly plan_meets_goal: boolean;
  /** The same plans by the `--baseline` engine, taking turns with this row's. */
  readonly baseline?: {
    readonly read_start: number;
    readonly read_parallelism: number;
    readonly plan_s: number;
    readonly concurrency: number;
    readonly fleetform_cpu_s: number;
  };
}

/** What a no-change plan at `rttMs` may take: 1.3 x on loopback plus four round trips (connect, authenticate, read, a read that depends on it). */
export function planGoal(loopbackS: number, rttMs: number): number {
  return 1.3 * loopbackS + (4 * rttMs) / 1000;
}

/** One timed no-change plan: seconds, this process's CPU seconds, and how the reads went. */
async function timedPlan(engine: Engine, load: LoadStacks, rtt: number): Promise<{ s: number; cpuS: number; inFlight: number }> {
  let changes = -1;
  const own = process.cpuUsage();
  const s = await timed(async () => (changes = await planOnce(engine, load)));
  const used = process.cpuUsage(own);
  if (changes !== 0) throw new Error(`expected no changes at ${rtt} ms, planned ${changes}`);
  return { s, cpuS: r3((used.user + used.system) / 1e6), inFlight: engine.readStats()?.peakInFlight ?? 0 };
}

async function main(): Promise<void> {
  const size = Number(process.argv[2]);
  const rtts = [...new Set([0, ...arg('--rtts', '0,20,80').split(',').map(Number)])];
  const runs = Number(arg('--runs', size >= 10000 ? '1' : '3'));
  const parallelism = Number(arg('--parallelism', '10'));
  const readParallelism = Number(arg('--read-parallelism', String(READ_PARALLELISM)));
  const baselineArg = arg('--baseline', '');
  const [baseStart, baseMax] = baselineArg ? baselineArg.split('/').map(Number) : [];
  const baseline = baseStart && baseMax ? { start: baseStart, max: baseMax } : undefined;
  let loopbackS = 0;
  const bytesPerSecond = Number(arg('--mbps', '100')) * 125_000;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetform-latency-'));
  const session = await openSession(size, parallelism, work);
  const rows: LatencyRow[] = [];
  try {
    const setup = await planAndApply(session.engine, session.a);
    if (setup.changed !== size) throw new Error(`setup planned ${setup.changed} changes for ${size} machines`);
    const { apiKeyId, apiKey, organizationId, locationId } = session.emu.credentials;
    let current = session.a;
    for (const rtt of rtts) {
      const proxy = await spawnLatencyProxy({ target: session.emu.url, rttMs: rtt, bytesPerSecond: rtt === 0 ? 0 : bytesPerSecond });
      const client = await createServiceClient({
        serviceHost: proxy.url,
        credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey },
        maxConnections: Math.max(readParallelism, baseline?.max ?? 0),
        compression: 'none',
      });
      const settings = {
        client,
        backend: session.backend,
        kinds: defaultKinds(),
        parallelism,
        lockTimeoutMs: 10_000,
        defaults: { organizationId, locationId },
      };
      const engine = new Engine({ ...settings, readParallelism, readStart: READ_LIMIT_START });
      const before = baseline ? new Engine({ ...settings, readParallelism: baseline.max, readStart: baseline.start }) : undefined;
      const baseTimes: number[] = [];
      const baseCpu: number[] = [];
      let baseInFlight = 0;
      try {
        const planTimes: number[] = [];
        let calls = 0;
        let concurrency = 0;
        let endLimit = 0;
        const latencies: number[] = [];
        const cpus: { fleetform: number; emulator: number; proxy: number }[] = [];
        for (let r = 0; r < runs; r++) {
          // The baseline's plan goes first on even runs and last on odd ones.
          const baselinePlan = async () => {
            if (!before) return;
            const b = await timedPlan(before, current, rtt);
            baseTimes.push(b.s);
            baseCpu.push(b.cpuS);
            baseInFlight = Math.max(baseInFlight, b.inFlight);
          };
          if (r % 2 === 0) await baselinePlan();
          const requestsBefore = await proxy.requests();
          let changes = -1;
          const own = process.cpuUsage();
          const emulatorCpu = processCpuSeconds(session.emu.pid);
          const proxyCpu = processCpuSeconds(proxy.pid);
          planTimes.push(await timed(async () => (changes = await planOnce(engine, current))));
          const used = process.cpuUsage(own);
          cpus.push({
            fleetform: r3((used.user + used.system) / 1e6),
            emulator: r3(processCpuSeconds(session.emu.pid) - emulatorCpu),
            proxy: r3(processCpuSeconds(proxy.pid) - proxyCpu),
          });
          latencies.push(engine.readStats()?.meanLatencyMs ?? 0);
          if (changes !== 0) throw new Error(`expected no changes at ${rtt} ms, planned ${changes}`);
          calls = (await proxy.requests()) - requestsBefore;
          concurrency = Math.max(concurrency, engine.readStats()?.peakInFlight ?? parallelism);
          endLimit = engine.readStats()?.limit ?? parallelism;
          if (r % 2 === 1) await baselinePlan();
        }
        const next = current === session.a ? session.b : session.a;
        const beforeApply = await proxy.requests();
        const round = await planAndApply(engine, next);
        const applyCalls = (await proxy.requests()) - beforeApply - calls;
        current = next;
        const planS = median(planTimes);
        const medianRun = planTimes.indexOf(planTimes.slice().sort((x, y) => x - y)[Math.floor((planTimes.length - 1) / 2)] as number);
        const bound = (calls * rtt) / 1000 / concurrency;
        if (rtt === 0) loopbackS = planS;
        const goal = planGoal(loopbackS, rtt);
        const applyBound = (applyCalls * rtt) / 1000 / parallelism;
        rows.push({
          size,
          rtt_ms: rtt,
          plan_s: r3(planS),
          bound_s: r3(bound),
          plan_to_bound: bound > 0 ? r3(planS / bound) : 0,
          concurrency,
          plan_calls: calls,
          read_latency_ms: Math.round((latencies[medianRun] as number) * 10) / 10,
          plan_cpu_s: cpus[medianRun] as LatencyRow['plan_cpu_s'],
          apply_s: r3(round.applyS),
          apply_calls: applyCalls,
          apply_bound_s: r3(applyBound),
          apply_to_bound: applyBound > 0 ? r3(round.applyS / applyBound) : 0,
          apply_concurrency: parallelism,
          plan_goal_s: r3(goal),
          plan_meets_goal: planS <= goal,
          ...(baseline
            ? {
                baseline: {
                  read_start: baseline.start,
                  read_parallelism: baseline.max,
                  plan_s: r3(median(baseTimes)),
                  concurrency: baseInFlight,
                  fleetform_cpu_s: r3(median(baseCpu)),
                },
              }
            : {}),
        });
        process.stderr.write(
          `  ${size} machines at ${rtt} ms: plan ${planS.toFixed(2)} s (bound ${bound.toFixed(2)} s at ${concurrency} in flight; read limit at the end ${endLimit} after ${engine.readStats()?.slowdowns ?? 0} slowdowns; ` +
            `reads answered in ${(latencies[medianRun] as number).toFixed(1)} ms on average; CPU s fleetform/emulator/proxy ${Object.values(cpus[medianRun] ?? {}).join('/')}; ` +
            `goal ${goal.toFixed(2)} s: ${planS <= goal ? 'pass' : 'FAIL'})\n`,
        );
        if (baseline) {
          process.stderr.write(
            `  ${size} machines at ${rtt} ms, reads from ${baseline.start} up to ${baseline.max}, in turn with the above: plan ${median(baseTimes).toFixed(2)} s ` +
              `(${baseInFlight} in flight; fleetform CPU ${median(baseCpu).toFixed(2)} s; runs ${baseTimes.map((t) => t.toFixed(2)).join('/')} against ${planTimes.map((t) => t.toFixed(2)).join('/')})\n`,
          );
        }
      } finally {
        await client.close();
        await proxy.close();
      }
    }
    const state = await session.backend.read(FLEET_STACK);
    if (Object.keys(state.resources).length !== size)
      throw new Error(`state holds ${Object.keys(state.resources).length} machines, expected ${size}`);
    process.stdout.write(`${JSON.stringify(rows)}\n`);
  } finally {
    await session.close();
  }
}

runMain(main);
