/**
 * ListRegistryItems, as the emulator answers it. With `organization_id`: the items that
 * organization owns (its modules and training scripts whatever their visibility, and the
 * models its jobs trained) plus every public item; without it, every item the caller may
 * read. Then the filters: `types` and `visibilities` (empty: any), `public_namespaces`
 * (empty: any), `statuses` (every emulated item is PUBLISHED), `search_term` (a
 * case-insensitive part of the item id, name or description). `platforms` does not narrow
 * (every emulated version is for any platform). One page holds every item, by item id.
 */
import type { Principal } from '../auth/principal';
import { knowsOrganization, organizationsOf } from '../auth/principal';
import type { Sdk } from '../../api/sdk';
import type { Db } from '../db/database';
import { getOrganization } from '../store/accounts';
import { allRegistryItems } from '../store/registry';
import { registryItemMessage } from './registry';
import { trainedModelMessage, trainedModelsOf } from './trained-models';

/** `viam.app.v1.RegistryItemStatus.PUBLISHED`. */
const PUBLISHED = 1;

export interface RegistryListing {
  readonly organizationId?: string;
  readonly types: readonly number[];
  readonly visibilities: readonly number[];
  readonly statuses: readonly number[];
  readonly searchTerm?: string;
  readonly publicNamespaces: readonly string[];
}

type ItemMessage = ReturnType<typeof registryItemMessage> | ReturnType<typeof trainedModelMessage>;

/** The listing; `orgId`, when given, is an organization the caller may read (checked by the caller). */
export function listRegistryItems(db: Db, p: Principal, req: RegistryListing, sdk: Sdk): ItemMessage[] {
  const orgId = req.organizationId ?? '';
  const owns = (o: string) => (orgId !== '' ? o === orgId : knowsOrganization(p, o));
  const items: ItemMessage[] = allRegistryItems(db)
    .filter((i) => i.visibility === 'public' || owns(i.organizationId))
    .map((i) => registryItemMessage(db, i, sdk));
  for (const id of orgId !== '' ? [orgId] : organizationsOf(p)) {
    const org = getOrganization(db, id);
    if (org) items.push(...trainedModelsOf(db, org).map(trainedModelMessage));
  }
  const term = (req.searchTerm ?? '').trim().toLowerCase();
  return items
    .filter((i) => req.types.length === 0 || req.types.includes(i.type))
    .filter((i) => req.visibilities.length === 0 || req.visibilities.includes(i.visibility))
    .filter(() => req.statuses.length === 0 || req.statuses.includes(PUBLISHED))
    .filter((i) => req.publicNamespaces.length === 0 || req.publicNamespaces.includes(i.publicNamespace))
    .filter((i) => term === '' || [i.itemId, i.name, i.description].some((t) => t.toLowerCase().includes(term)))
    .sort((a, b) => (a.itemId < b.itemId ? -1 : a.itemId > b.itemId ? 1 : 0));
}
