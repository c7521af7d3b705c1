/**
 * Plan and apply at a distance: one fleet size, applied once on loopback, then planned (no
 * changes) and applied (a 10% change) through a proxy that adds each round-trip time, with
 * reads following the network up to `--read-parallelism`. The bound a run is held against
 * is `calls x RTT / concurrency`: the plan's concurrency is the most reads the engine kept
 * in flight, the apply's its write parallelism. Prints one JSON line.
 * Usage: latency-run.ts SIZE [--rtts 0,20,80] [--runs N] [--parallelism N] [--read-parallelism N] [--mbps N]
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createServiceClient } from '../src/api/client';
import { Engine } from '../src/engine/engine';
import { defaultKinds } from '../src/engine/kinds';
import { FLEET_STACK } from './fleet';
import { spawnLatencyProxy } from './latency-proxy';
import { openSession, planAndApply, planOnce } from './session';
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
}

async function main(): Promise<void> {
  const size = Number(process.argv[2]);
  const rtts = arg('--rtts', '0,20,80').split(',').map(Number);
  const runs = Number(arg('--runs', size >= 10000 ? '1' : '3'));
  const parallelism = Number(arg('--parallelism', '10'));
  const readParallelism = Number(arg('--read-parallelism', '64'));
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
      const client = await createServiceClient({ serviceHost: proxy.url, credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey }, maxConnections: readParallelism, compression: 'none' });
      const engine = new Engine({ client, backend: session.backend, kinds: defaultKinds(), parallelism, readParallelism, lockTimeoutMs: 10_000, defaults: { organizationId, locationId } });
      try {
        const planTimes: number[] = [];
        let calls = 0;
        let concurrency = 0;
        let endLimit = 0;
        const latencies: number[] = [];
        const cpus: { fleetform: number; emulator: number; proxy: number }[] = [];
        for (let r = 0; r < runs; r++) {
          const before = await proxy.requests();
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
          calls = (await proxy.requests()) - before;
          concurrency = Math.max(concurrency, engine.readStats()?.peakInFlight ?? parallelism);
          endLimit = engine.readStats()?.limit ?? parallelism;
        }
        const next = current === session.a ? session.b : session.a;
        const beforeApply = await proxy.requests();
        const round = await planAndApply(engine, next);
        const applyCalls = (await proxy.requests()) - beforeApply - calls;
        current = next;
        const planS = median(planTimes);
        const medianRun = planTimes.indexOf(planTimes.slice().sort((x, y) => x - y)[Math.floor((planTimes.length - 1) / 2)] as number);
        const bound = (calls * rtt) / 1000 / concurrency;
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
        });
        process.stderr.write(
          `  ${size} machines at ${rtt} ms: plan ${planS.toFixed(2)} s (bound ${bound.toFixed(2)} s at ${concurrency} in flight; read limit at the end ${endLimit} after ${engine.readStats()?.slowdowns ?? 0} slowdowns; ` +
            `reads answered in ${(latencies[medianRun] as number).toFixed(1)} ms on average; CPU s fleetform/emulator/proxy ${Object.values(cpus[medianRun] ?? {}).join('/')})\n`,
        );
      } finally {
        await client.close();
        await proxy.close();
      }
    }
    const state = await session.backend.read(FLEET_STACK);
    if (Object.keys(state.resources).length !== size) throw new Error(`state holds ${Object.keys(state.resources).length} machines, expected ${size}`);
    process.stdout.write(`${JSON.stringify(rows)}\n`);
  } finally {
    await session.close();
  }
}

runMain(main);
