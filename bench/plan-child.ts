/**
 * One `fleetform plan` with no changes in a process of its own, for its CPU and peak memory:
 * reads the synthesized stacks and plans them against the emulator (refresh) with the
 * benchmark's state folder. Usage: `plan-child.ts SESSION_JSON OUTDIR [--heap TOP]`, where
 * SESSION_JSON holds `{ url, credentials, stateDir, parallelism }`; `--heap TOP` samples the
 * heap's allocations over the plan and lists the TOP functions whose allocations are still
 * alive when it ends (plan and stacks held). Prints one JSON line
 * `{ changes, wall_s, cpu_s, read_stacks_s, peak_rss_mb, heap_used_mb, heap_top? }`.
 */
import * as fs from 'node:fs';
import { Session as Inspector } from 'node:inspector/promises';
import { createServiceClient } from '../src/api/client';
import type { EmulatorCredentials } from '../src/emulator';
import { readStacks } from '../src/engine/desired/read-stacks';
import { LocalStateBackend } from '../src/engine/state/local-backend';
import { FLEET_STACK } from './fleet';
import { liveAllocationsTop, type SamplingHeapProfile } from './heap-summary';
import { benchEngine, READ_PARALLELISM } from './session';
import { cpuSecondsSince, runMain, timed } from './stats';

async function main(): Promise<void> {
  const [sessionFile, outdir] = process.argv.slice(2) as [string, string];
  const heapAt = process.argv.indexOf('--heap');
  const heapTop = heapAt > 0 ? Number(process.argv[heapAt + 1]) : 0;
  const s = JSON.parse(fs.readFileSync(sessionFile, 'utf8')) as {
    url: string;
    credentials: EmulatorCredentials;
    stateDir: string;
    parallelism: number;
  };
  const { apiKeyId, apiKey, organizationId, locationId } = s.credentials;
  const client = await createServiceClient({
    serviceHost: s.url,
    credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey },
    maxConnections: READ_PARALLELISM,
  });
  const engine = benchEngine(client, new LocalStateBackend(s.stateDir), s.parallelism, { organizationId, locationId });
  const inspector = heapTop > 0 ? new Inspector() : undefined;
  if (inspector) {
    inspector.connect();
    await inspector.post('HeapProfiler.startSampling', { samplingInterval: 256 * 1024 });
  }
  const release = await engine.lock([FLEET_STACK], 'bench plan');
  try {
    const cpu = process.cpuUsage();
    let stacks: Awaited<ReturnType<typeof readStacks>> = [];
    let changes = -1;
    let planned: Awaited<ReturnType<typeof engine.plan>> | undefined;
    const readStacksS = await timed(async () => (stacks = await readStacks(outdir)));
    const wallS =
      readStacksS +
      (await timed(async () => {
        planned = await engine.plan(stacks, { refresh: true, destroy: false });
        changes = planned.plan.changes.filter((c) => c.action !== 'no-op').length;
      }));
    const cpuS = cpuSecondsSince(cpu);
    const heapUsedMb = Math.round(process.memoryUsage().heapUsed / (1024 * 1024));
    let heap: string[] | undefined;
    if (inspector) {
      const { profile } = (await inspector.post('HeapProfiler.stopSampling')) as { profile: SamplingHeapProfile };
      heap = liveAllocationsTop(profile, heapTop);
      inspector.disconnect();
    }
    // The plan and the stacks stay reachable up to here, as a command holds them until it has shown the plan.
    const held = planned !== undefined && stacks.length > 0;
    process.stdout.write(
      `${JSON.stringify({
        changes,
        held,
        wall_s: wallS,
        cpu_s: cpuS,
        read_stacks_s: readStacksS,
        peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
        heap_used_mb: heapUsedMb,
        ...(heap ? { heap_top: heap } : {}),
      })}\n`,
    );
  } finally {
    await release();
    await client.close();
  }
}

runMain(main);
