import type { JsonObject } from '../json';
import type { Applied, KindContext, ResourceKind } from '../kind';
import type { StateEntry } from '../state/schema';

/**
 * Taking back what an earlier destroy kept (retain_on_delete): a declaration with no state
 * entry whose object is still on the service stands as that object, recorded in state
 * instead of made again. `fleetform apply` and the Terraform provider both take back
 * through these two functions.
 */

/** The kept object the declared attributes name again, ids in `managedIds` skipped; undefined when none. */
export async function findKeptObject(
  kind: ResourceKind,
  ctx: KindContext,
  attributes: JsonObject,
  managedIds: ReadonlySet<string>,
): Promise<Applied | undefined> {
  const found = kind.findRetained ? await kind.findRetained(ctx, attributes, managedIds) : undefined;
  return found ? { ...found, foundAs: 'retained' } : undefined;
}

/** What the kind keeps of an object taken back, before any apply wrote its attributes. */
export const TAKEN_BACK_PRIVATE: JsonObject = { found_as: 'retained' };

/** The state entry of a kept object taken back: its ids, no applied attributes yet. */
export function takenBackEntry(type: string, found: Applied, dependencies: readonly string[]): StateEntry {
  return {
    type,
    ids: { ...found.ids },
    outputs: { ...found.outputs },
    attributes: null,
    dependencies: [...dependencies],
    private: { ...TAKEN_BACK_PRIVATE },
    sensitive_paths: [],
    status: 'ok',
  };
}
