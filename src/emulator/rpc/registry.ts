/**
 * Registry reads shared by the app service and the controls: resolving an item id
 * (`namespace:name`, or `<organization id>:name`), visibility, and the wire messages.
 */
import { isOrganizationOwner, knowsOrganization, type Principal } from '../auth/principal';
import type { Db } from '../db/database';
import { ModuleVersionStatus, VersionHistoryStatus } from '../../api/own-messages';
import type { Sdk } from '../../api/sdk';
import { registryVersions, type RegistryItemRecord, type RegistryItemType, type RegistryVersionRecord } from '../store/registry';
import { findRegistryItem } from '../logic/registry-items';
import { timestamp } from './context';
import { invalidArgument, notFound, permissionDenied, required } from './errors';

/** `viam.app.packages.v1.PackageType` numbers. */
const PACKAGE_TYPE = { module: 3, ml_training: 5 } as const;
/** `viam.app.v1.Visibility` numbers. */
const VISIBILITY = { private: 1, public: 2 } as const;

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
export function moduleVersionsLookup(db: Db, organizationId: string): (moduleId: string) => readonly RegistryVersionRecord[] | undefined {
  return (moduleId) => {
    const item = findRegistryItem(db, moduleId);
    if (!item || item.type !== 'module' || !visibleTo(item, (o) => o === organizationId)) return undefined;
    return registryVersions(db, item.itemId);
  };
}

/** The registry's versions of a module with what each says beyond the pinned SDK's messages. */
function versionRecords(db: Db, item: RegistryItemRecord) {
  return registryVersions(db, item.itemId).map((v) => ({
    plain: {
      version: v.version,
      files: [{ platform: 'any', uploadedAt: timestamp(v.createdOn) }],
      models: v.models.map((m) => ({ api: m.api, model: m.model })),
      entrypoint: 'bin/module',
    },
    record: v,
  }));
}

function deprecatedStatus(v: RegistryVersionRecord) {
  return v.deprecated === undefined ? undefined : { deprecatedAt: timestamp(v.deprecatedAt ?? 0), message: v.deprecated };
}

/**
 * A version as the SDK's message with the fields it lacks appended: the bytes of a message
 * holding them alone, at the service's numbers, merged in as protobuf merges concatenated
 * messages; the SDK keeps them as unknown fields and writes them back.
 */
function withFields<M extends { toBinary(): Uint8Array }>(
  type: { new (init: object): M; fromBinary(bytes: Uint8Array): M },
  plain: object,
  extra: Uint8Array,
): M {
  const base = new type(plain).toBinary();
  const bytes = new Uint8Array(base.length + extra.length);
  bytes.set(base);
  bytes.set(extra, base.length);
  return type.fromBinary(bytes);
}

/** The SDK's messages of a version, as the wire messages carry them. */
export type VersionHistoryMessage = InstanceType<Sdk['appApi']['VersionHistory']>;
export type ModuleVersionMessage = InstanceType<Sdk['appApi']['ModuleVersion']>;

/** viam.app.v1.VersionHistory of each version (Module.versions), deprecation included. */
function moduleVersions(db: Db, item: RegistryItemRecord, sdk: Sdk): VersionHistoryMessage[] {
  return versionRecords(db, item).map(({ plain, record }) =>
    withFields(sdk.appApi.VersionHistory, plain, new VersionHistoryStatus({ deprecatedStatus: deprecatedStatus(record) }).toBinary()),
  );
}

/** viam.app.v1.ModuleVersion of each version (ModuleMetadata.versions), deprecation and minimum viam-server included. */
function metadataVersions(db: Db, item: RegistryItemRecord, sdk: Sdk): ModuleVersionMessage[] {
  return versionRecords(db, item).map(({ plain, record }) =>
    withFields(
      sdk.appApi.ModuleVersion,
      plain,
      new ModuleVersionStatus({
        deprecatedStatus: deprecatedStatus(record),
        ...(record.minViamServerVersion === undefined ? {} : { minViamServerVersion: record.minViamServerVersion }),
      }).toBinary(),
    ),
  );
}

interface ModelRef {
  readonly api: string;
  readonly model: string;
}

function latestModels(versions: readonly { models: readonly ModelRef[] }[]): ModelRef[] {
  return (versions[versions.length - 1]?.models ?? []).map((m) => ({ api: m.api, model: m.model }));
}

/** The fields of `viam.app.v1.Module` the emulator fills. */
export interface ModuleMessage {
  readonly moduleId: string;
  readonly name: string;
  readonly visibility: number;
  readonly versions: VersionHistoryMessage[];
  readonly url: string;
  readonly description: string;
  readonly models: ModelRef[];
  readonly organizationId: string;
  readonly entrypoint: string;
  readonly publicNamespace: string;
}

/** The fields of `viam.app.v1.RegistryItem` the emulator fills, with module or ML training metadata. */
export interface RegistryItemMessage {
  readonly itemId: string;
  readonly organizationId: string;
  readonly publicNamespace: string;
  readonly name: string;
  readonly type: number;
  readonly visibility: number;
  readonly url: string;
  readonly description: string;
  readonly createdAt: ReturnType<typeof timestamp>;
  readonly updatedAt: ReturnType<typeof timestamp>;
  readonly metadata:
    | { readonly case: 'moduleMetadata'; readonly value: { models: ModelRef[]; versions: ModuleVersionMessage[]; entrypoint: string } }
    | {
        readonly case: 'mlTrainingMetadata';
        readonly value: {
          versions: { version: string; createdOn: ReturnType<typeof timestamp> }[];
          modelType: number;
          modelFramework: number;
          draft: boolean;
        };
      };
}

/** `viam.app.v1.Module` (versions ascending by semver). */
export function registryModuleMessage(db: Db, item: RegistryItemRecord, sdk: Sdk): ModuleMessage {
  const versions = moduleVersions(db, item, sdk);
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
export function registryItemMessage(db: Db, item: RegistryItemRecord, sdk: Sdk): RegistryItemMessage {
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
    const versions = metadataVersions(db, item, sdk);
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

/**
 * A version of a module the caller's organization owns, for a call that changes what the
 * registry says of it: NotFound for an item or version there is not, PermissionDenied for
 * another organization's module.
 */
export function ownedVersion(db: Db, p: Principal, itemId: string, version: string): { item: RegistryItemRecord; version: string } {
  const item = visibleRegistryItem(db, p, required(itemId, 'item_id'));
  if (item.type !== 'module')
    throw invalidArgument(`item_id: registry item ${item.itemId} is a ${item.type}; only module versions can be deprecated`);
  if (!isOrganizationOwner(p, item.organizationId)) {
    throw permissionDenied(`registry item ${item.itemId} belongs to organization ${item.organizationId}, which you do not own`);
  }
  const wanted = required(version, 'version');
  if (!registryVersions(db, item.itemId).some((v) => v.version === wanted))
    throw notFound(`registry item ${item.itemId} has no version ${wanted}`);
  return { item, version: wanted };
}
