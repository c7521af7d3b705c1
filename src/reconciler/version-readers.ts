/**
 * Reads of an object's version alone, for kinds whose observation does more than the
 * version needs. A machine's version is its part's `last_updated`: one `GetRobotPart`, read
 * for its `last_updated` alone (the config's bytes skipped, never decoded). A reader answers undefined when it cannot tell cheaply (no
 * part recorded, the part gone): the kind's own observation says then.
 */
import { unlessNotFound } from '../api/client';
import type { KindContext, StateEntry } from '../engine';

export type VersionReader = (ctx: KindContext, entry: StateEntry) => Promise<string | undefined>;

const machineVersion: VersionReader = async (ctx, entry) => {
  const partId = entry.ids.part_id;
  if (!partId) return undefined;
  const read = await unlessNotFound(async () => ({ lastUpdated: await ctx.client.appClient.getMachinePartVersion(partId) }));
  return read ? (read.lastUpdated?.toISOString() ?? 'never') : undefined;
};

/** The version readers by resource type. */
export const VERSION_READERS: ReadonlyMap<string, VersionReader> = new Map([['fleetform_machine', machineVersion]]);
