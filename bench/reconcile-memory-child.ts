/**
 * The reconciler's process for its peak memory: `reconcile-memory-child.ts SESSION_JSON
 * OUTDIR`, where SESSION_JSON holds `{ url, credentials, stateDir }`. Runs the reconciler
 * (the engine in-process, as `fleetform reconcile` runs it) over the synthesized stacks in
 * OUTDIR for two full plans: the first cycle's, then a `heal`'s (made while the first
 * cycle's baseline and plan are held until it starts). Prints one JSON line `{ full_plans, seconds, changes, peak_rss_mb_after
 * (the peak so far at each plan's end), peak_rss_mb, heap_used_mb }`.
 */
import * as fs from 'node:fs';
import { createServiceClient } from '../src/api/client';
import type { EmulatorCredentials } from '../src/emulator';
import { readStacks } from '../src/engine/desired/read-stacks';
import { Engine } from '../src/engine/engine';
import { defaultKinds } from '../src/engine/kinds';
import { LocalStateBackend } from '../src/engine/state/local-backend';
import type { ReconcilerEvent } from '../src/reconciler/events';
import { boundHeapGrowth } from '../src/reconciler/heap-growth';
import { Reconciler } from '../src/reconciler/reconciler';
import { READ_PARALLELISM } from './session';
import { r3, runMain } from './stats';

const peakRssMb = (): number => Math.round(process.resourceUsage().maxRSS / 1024);

/** Full plans measured: the first cycle's and a heal's. */
const FULL_PLANS = 2;

async function main(): Promise<void> {
  // As `fleetform reconcile` starts: the heap's growth bounded unless node was given a heap option.
  boundHeapGrowth();
  const [sessionFile, outdir] = process.argv.slice(2) as [string, string];
  const s = JSON.parse(fs.readFileSync(sessionFile, 'utf8')) as { url: string; credentials: EmulatorCredentials; stateDir: string };
  const { apiKeyId, apiKey, organizationId, locationId } = s.credentials;
  const client = await createServiceClient({ serviceHost: s.url, credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey } });
  const kinds = defaultKinds();
  // The CLI's settings: `fleetform reconcile` plans with its default read parallelism.
  const engine = new Engine({
    client,
    backend: new LocalStateBackend(s.stateDir),
    kinds,
    parallelism: 10,
    readParallelism: READ_PARALLELISM,
    lockTimeoutMs: 10_000,
    defaults: { organizationId, locationId },
  });
  const reconciler = new Reconciler({
    source: { description: outdir, fetch: () => Promise.resolve({ dir: outdir, id: 'r0' }), hasNew: () => Promise.resolve(false) },
    loader: {
      load: async () => ({
        stacks: await readStacks(outdir),
        engine,
        readers: { kinds },
        lead: () => Promise.resolve(async () => undefined),
      }),
      close: async () => undefined,
    },
    apply: 'plan-only',
    drift: 'warn',
    windows: [],
    // Long enough that no interval's check runs between the measured plans.
    intervalMs: 3_600_000,
    pollMs: 50,
    maxDestroy: 0,
    logger: { log: () => undefined },
  });
  const ends: Array<Extract<ReconcilerEvent, { type: 'cycle-finished' }>> = [];
  const peaks: number[] = [];
  let wake: (() => void) | undefined;
  reconciler.subscribe((e) => {
    if (e.type === 'cycle-failed') throw new Error(`cycle failed: ${e.error}`);
    if (e.type === 'cycle-finished') {
      ends.push(e);
      peaks.push(peakRssMb());
      wake?.();
    }
  });
  const cycleEnd = (count: number): Promise<void> =>
    new Promise((resolve) => {
      wake = () => ends.length >= count && resolve();
      wake();
    });
  try {
    reconciler.start();
    await cycleEnd(1);
    for (let i = 1; i < FULL_PLANS; i++) {
      reconciler.healNow();
      await cycleEnd(i + 1);
    }
    await reconciler.stop();
    process.stdout.write(
      `${JSON.stringify({
        full_plans: ends.length,
        seconds: ends.map((e) => r3(e.seconds)),
        changes: ends.map((e) => e.changes),
        peak_rss_mb_after: peaks,
        peak_rss_mb: peakRssMb(),
        heap_used_mb: Math.round(process.memoryUsage().heapUsed / 1024 / 1024),
      })}\n`,
    );
  } finally {
    await client.close();
  }
}

runMain(main);
