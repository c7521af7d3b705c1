/**
 * The floors: the plan's part reads issued directly with our client, at the best of a few
 * parallelisms, and the apply's part writes (a read and a guarded write per changed part,
 * as the apply does); and the same reads through the official SDK at that parallelism.
 */
import type { ServiceClient } from '../src/api/client';
import { loadSdk } from '../src/api/sdk';
import { median, medianOf, pool, timed } from './stats';

/**
 * Reads every part once at each parallelism, then takes the median of `runs` passes
 * (the trial included) at the fastest one.
 */
export async function measureFloor(
  client: ServiceClient,
  partIds: readonly string[],
  parallelisms: readonly number[],
  runs: number,
): Promise<{ floorS: number; parallelism: number; byParallelism: Record<number, number> }> {
  const pass = (p: number) => timed(() => pool(partIds, p, (id) => client.appClient.getMachinePart(id)));
  const byParallelism: Record<number, number> = {};
  for (const p of parallelisms) byParallelism[p] = await pass(p);
  const best = parallelisms.reduce((a, b) => ((byParallelism[b] as number) < (byParallelism[a] as number) ? b : a));
  const times = [byParallelism[best] as number];
  for (let r = 1; r < runs; r++) times.push(await pass(best));
  return { floorS: median(times), parallelism: best, byParallelism };
}

/** Median seconds of the same reads through the official SDK's `appClient.getRobotPart`. */
export async function measureSdk(
  url: string,
  apiKeyId: string,
  apiKey: string,
  partIds: readonly string[],
  parallelism: number,
  runs: number,
): Promise<number> {
  const sdk = await loadSdk();
  const viam = await sdk.createViamClient({ serviceHost: url, credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey } });
  return medianOf(runs, async () => {
    for (let i = 0; i < partIds.length; i += parallelism) {
      await Promise.all(partIds.slice(i, i + parallelism).map((id) => viam.appClient.getRobotPart(id)));
    }
  });
}

/** Median seconds of our client issuing the reads exactly as `measureSdk` does (batches under Promise.all). */
export async function measureOursBatched(
  client: ServiceClient,
  partIds: readonly string[],
  parallelism: number,
  runs: number,
): Promise<number> {
  return medianOf(runs, async () => {
    for (let i = 0; i < partIds.length; i += parallelism) {
      await Promise.all(partIds.slice(i, i + parallelism).map((id) => client.appClient.getMachinePart(id)));
    }
  });
}

/**
 * Median seconds of what the apply of a change costs on the wire: for every part, one read
 * and one write guarded by the part's last update, at `parallelism`. The config written is
 * the one read, so the fleet stays as it was (the service stores every write).
 */
export async function measureWriteFloor(
  client: ServiceClient,
  partIds: readonly string[],
  parallelism: number,
  runs: number,
): Promise<number> {
  return medianOf(runs, () =>
    pool(partIds, parallelism, async (id) => {
      const part = await client.appClient.getMachinePart(id);
      await client.appClient.updateMachinePart(part.id, part.name, part.config, part.lastUpdated);
    }),
  );
}
