import { parseModuleId } from '../../domain';
import type { Db } from '../db/database';
import { getOrganization } from '../store/accounts';
import { getRegistryItem, type RegistryItemRecord } from '../store/registry';

/** The item an id names: `namespace:name` directly, or `<organization id>:name` through that organization's namespace. */
export function findRegistryItem(db: Db, itemId: string): RegistryItemRecord | undefined {
  const direct = getRegistryItem(db, itemId);
  if (direct) return direct;
  const parsed = parseModuleId(itemId);
  if (!parsed) return undefined;
  const org = getOrganization(db, parsed.namespace);
  if (!org || org.publicNamespace === '') return undefined;
  return getRegistryItem(db, `${org.publicNamespace}:${parsed.name}`);
}
