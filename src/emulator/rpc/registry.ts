/**
 * Registry reads shared by the app service and the controls: resolving an item id
 * (`namespace:name`, or `<organization id>:name`), visibility, and the wire messages.
 */
import { parseModuleId } from '../../domain';
import { knowsOrganization, type Principal } from '../auth/principal';
import type { Db } from '../db/database';
import { getOrganization } from '../store/accounts';
import { getRegistryItem, registryVersions, type RegistryItemRecord, type RegistryItemType } from '../store/registry';
import { timestamp } from './context';
import { notFound } from './errors';

/** `viam.app.packages.v1.PackageType` numbers. */
const PACKAGE_TYPE = { module: 3, ml_training: 5 } as const;
/** `viam.app.v1.Visibility` numbers. */
const VISIBILITY = { private: 1, public: 2 } as const;

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

function visibleTo(item: RegistryItemRecord, organizationIds: (orgId: string) => boolean): boolean {
  return item.visibility === 'public' || organizationIds(item.organizationId);
}

/** An item the caller may read (public, or private to one of its organizations); NotFound otherwise. */
export function visibleRegistryItem(db: Db, p: Principal, itemId: string, type?: RegistryItemType): RegistryItemRecord {
  const item = findRegistryItem(db, itemId);
  const what = type === 'module' ? 'module' : 'registry item';
  if (!item || !visibleTo(item, (o) => knowsOrganization(p, o)) || (type !== undefined && item.type !== type)) {
    throw notFound(`${what} ${itemId} not found`);
  }
  return item;
}

/** The versions of a module as a machine of `organizationId` may use it; undefined when it cannot. */
export function moduleVersionsLookup(db: Db, organizationId: string): (moduleId: string) => readonly string[] | undefined {
  return (moduleId) => {
    const item = findRegistryItem(db, moduleId);
    if (!item || item.type !== 'module' || !visibleTo(item, (o) => o === organizationId)) return undefined;
    return registryVersions(db, item.itemId).map((v) => v.version);
  };
}

function moduleVersions(db: Db, item: RegistryItemRecord) {
  return registryVersions(db, item.itemId).map((v) => ({
    version: v.version,
    files: [{ platform: 'any', uploadedAt: timestamp(v.createdOn) }],
    models: v.models.map((m) => ({ api: m.api, model: m.model })),
    entrypoint: 'bin/module',
  }));
}

function latestModels(versions: ReturnType<typeof moduleVersions>) {
  return versions[versions.length - 1]?.models ?? [];
}

/** `viam.app.v1.Module` (versions ascending by semver). */
export function registryModuleMessage(db: Db, item: RegistryItemRecord) {
  const versions = moduleVersions(db, item);
  return {
    moduleId: item.itemId,
    name: item.name,
    visibility: VISIBILITY[item.visibility],
    versions,
    url: '',
    description: item.description,
    models: latestModels(versions),
    organizationId: item.organizationId,
    entrypoint: 'bin/module',
    publicNamespace: item.namespace,
  };
}

/** `viam.app.v1.RegistryItem` with module or ML training metadata. */
export function registryItemMessage(db: Db, item: RegistryItemRecord) {
  const common = {
    itemId: item.itemId,
    organizationId: item.organizationId,
    publicNamespace: item.namespace,
    name: item.name,
    type: PACKAGE_TYPE[item.type],
    visibility: VISIBILITY[item.visibility],
    url: '',
    description: item.description,
    createdAt: timestamp(item.createdOn),
    updatedAt: timestamp(item.updatedOn),
  };
  if (item.type === 'module') {
    const versions = moduleVersions(db, item);
    return {
      ...common,
      metadata: {
        case: 'moduleMetadata' as const,
        value: { models: latestModels(versions), versions, entrypoint: 'bin/module' },
      },
    };
  }
  return {
    ...common,
    metadata: {
      case: 'mlTrainingMetadata' as const,
      value: {
        versions: registryVersions(db, item.itemId).map((v) => ({ version: v.version, createdOn: timestamp(v.createdOn) })),
        modelType: item.modelType,
        modelFramework: item.modelFramework,
        draft: false,
      },
    },
  };
}
