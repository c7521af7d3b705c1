/**
 * The floor: the plan's part reads issued directly with our client, at the best of a few
 * parallelisms; and the same reads through the official SDK at that parallelism.
 */
import type { ServiceClient } from '../src/api/client';
import { loadSdk } from '../src/api/sdk';
import { medianOf, pool } from './stats';

export const PARALLELISMS = [8, 16, 32, 64] as const;

/** Median seconds of reading every part with our client, at each parallelism; the best one. */
export async function measureFloor(client: ServiceClient, partIds: readonly string[], runs: number): Promise<{ floorS: number; parallelism: number; byParallelism: Record<number, number> }> {
  const byParallelism: Record<number, number> = {};
  for (const p of PARALLELISMS) {
    byParallelism[p] = await medianOf(runs, () => pool(partIds, p, (id) => client.appClient.getMachinePart(id)));
  }
  const best = PARALLELISMS.reduce((a, b) => ((byParallelism[b] as number) < (byParallelism[a] as number) ? b : a));
  return { floorS: byParallelism[best] as number, parallelism: best, byParallelism };
}

/** Median seconds of the same reads through the official SDK's `appClient.getRobotPart`. */
export async function measureSdk(url: string, apiKeyId: string, apiKey: string, partIds: readonly string[], parallelism: number, runs: number): Promise<number> {
  const sdk = await loadSdk();
  const viam = await sdk.createViamClient({ serviceHost: url, credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey } });
  return medianOf(runs, async () => {
    for (let i = 0; i < partIds.length; i += parallelism) {
      await Promise.all(partIds.slice(i, i + parallelism).map((id) => viam.appClient.getRobotPart(id)));
    }
  });
}

/** Median seconds of our client issuing the reads exactly as `measureSdk` does (batches under Promise.all). */
export async function measureOursBatched(client: ServiceClient, partIds: readonly string[], parallelism: number, runs: number): Promise<number> {
  return medianOf(runs, async () => {
    for (let i = 0; i < partIds.length; i += parallelism) {
      await Promise.all(partIds.slice(i, i + parallelism).map((id) => client.appClient.getMachinePart(id)));
    }
  });
}
