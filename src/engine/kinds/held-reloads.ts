/**
 * The reload keys a part holds on the service, read once per run: the plan's read of the part
 * leaves them here, so planning its config needs no read of its own. Only the entries holding
 * a reload key are kept, so a large fleet's run keeps next to nothing.
 */
import { reloadingEntries } from '../../domain/module-reload';
import type { KindContext } from '../kind';
import { unlessNotFound } from './not-found';

const key = (partId: string): string => `held-reloads:${partId}`;

/** Notes what a part read from the service holds of reloads (the first note of a run stands). */
export function noteHeldReloads(ctx: KindContext, partId: string, config: Readonly<Record<string, unknown>>): void {
  void ctx.memo(key(partId), () => Promise.resolve(reloadingEntries(config.modules)));
}

/** The module entries with reload keys the part holds (none for a part not created yet), read when the run has not read the part. */
export async function heldReloadEntries(ctx: KindContext, partId: string | undefined): Promise<Record<string, unknown>[] | undefined> {
  if (!partId) return undefined;
  return ctx.memo(key(partId), async () => {
    const part = await unlessNotFound(() => ctx.client.appClient.getMachinePart(partId));
    return reloadingEntries(part?.config.modules);
  });
}
