/**
 * Reads of an object's version alone, for kinds whose observation does more than the
 * version needs. A machine's version is its part's `last_updated`: one `GetRobotPart`, its
 * config not turned into a view. A reader answers undefined when it cannot tell cheaply (no
 * part recorded, the part gone): the kind's own observation says then.
 */
import { unlessNotFound } from '../api/client';
import type { KindContext } from '../engine/kind';
import type { StateEntry } from '../engine/state/schema';

export type VersionReader = (ctx: KindContext, entry: StateEntry) => Promise<string | undefined>;

const machineVersion: VersionReader = async (ctx, entry) => {
  const partId = entry.ids.part_id;
  if (!partId) return undefined;
  const part = await unlessNotFound(() => ctx.client.appClient.getMachinePart(partId));
  return part ? (part.lastUpdated?.toISOString() ?? 'never') : undefined;
};

/** The version readers by resource type. */
export const VERSION_READERS: ReadonlyMap<string, VersionReader> = new Map([['fleetform_machine', machineVersion]]);
