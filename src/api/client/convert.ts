/**
 * Conversions between the service's protobuf messages and the client's plain data. Pure
 * functions over the message shapes (structural types), so they run without the SDK.
 */
import type { ModelFramework, ModelType, TrainingStatus } from '../../domain/training';
import { datasetTypeOf } from '../../domain/dataset-type';
import type { ModuleVersion } from '../../domain/registry';
import type { TrainingContainer } from '../../domain/training-containers';
import { sortBySemver } from '../../domain/version-policy';
import type {
  ModuleVersionStatus,
  Dataset,
  Location,
  Machine,
  MachinePart,
  Organization,
  RegistryItem,
  RegistryItemType,
  RegistryModule,
  TrainingJob,
  TrainingJobLogEntry,
} from './types';
import { isObject as isRecord } from '../../domain/json-value';

/** A google.protobuf.Timestamp as protobuf-es represents it. */
export interface TimestampLike {
  toDate(): Date;
}

/** A google.protobuf.Struct as protobuf-es represents it. */
export interface StructLike {
  toJson(): unknown;
}

/** The time of a Timestamp, or undefined when the field is unset. */
export function dateOf(ts: TimestampLike | undefined): Date | undefined {
  return ts === undefined ? undefined : ts.toDate();
}

/** viam.app.mltraining.v1.TrainingJobMetadata */
export interface TrainingJobMetadataLike {
  id: string;
  datasetId: string;
  organizationId: string;
  modelName: string;
  modelVersion: string;
  modelType: number;
  modelFramework: number;
  isCustomJob: boolean;
  registryItemId: string;
  registryItemVersion: string;
  status: number;
  errorStatus?: { code: number; message: string };
  createdOn?: TimestampLike;
  lastModified?: TimestampLike;
  trainingStarted?: TimestampLike;
  trainingEnded?: TimestampLike;
  syncedModelId: string;
  tags: string[];
  arguments: { [key: string]: string };
  containerVersion: string;
}

/** Plain training job metadata; enum numbers are the domain's (same values as the wire). */
export function trainingJobOf(m: TrainingJobMetadataLike): TrainingJob {
  return withoutUndefined({
    id: m.id,
    datasetId: m.datasetId,
    organizationId: m.organizationId,
    modelName: m.modelName,
    modelVersion: m.modelVersion,
    modelType: m.modelType as ModelType,
    modelFramework: m.modelFramework as ModelFramework,
    isCustomJob: m.isCustomJob,
    registryItemId: m.registryItemId,
    registryItemVersion: m.registryItemVersion,
    status: m.status as TrainingStatus,
    errorStatus: m.errorStatus === undefined ? undefined : { code: m.errorStatus.code, message: m.errorStatus.message },
    createdOn: dateOf(m.createdOn),
    lastModified: dateOf(m.lastModified),
    trainingStarted: dateOf(m.trainingStarted),
    trainingEnded: dateOf(m.trainingEnded),
    syncedModelId: m.syncedModelId,
    tags: [...m.tags],
    arguments: { ...m.arguments },
    containerVersion: m.containerVersion,
  });
}

/** viam.app.mltraining.v1.TrainingJobLogEntry */
export function logEntryOf(m: { level: string; time?: TimestampLike; message: string }): TrainingJobLogEntry {
  return withoutUndefined({ level: m.level, time: dateOf(m.time), message: m.message });
}

/** viam.app.mltraining.v1.Container; an eol left unset is none. */
export function containerOf(m: {
  key: string;
  uri: string;
  framework: string;
  description: string;
  eol?: TimestampLike;
}): TrainingContainer {
  return withoutUndefined({ key: m.key, uri: m.uri, framework: m.framework, description: m.description, eol: dateOf(m.eol) });
}

/** viam.app.v1.Organization / Location: id and name. */
export function namedOf(m: { id: string; name: string }): Organization & Location {
  return { id: m.id, name: m.name };
}

/** viam.app.v1.Robot */
export function machineOf(m: { id: string; name: string; location: string; createdOn?: TimestampLike }): Machine {
  return withoutUndefined({ id: m.id, name: m.name, locationId: m.location, createdOn: dateOf(m.createdOn) });
}

/** viam.app.v1.RobotPart, the relevant fields. */
export interface RobotPartLike {
  id: string;
  name: string;
  robot: string;
  locationId: string;
  mainPart: boolean;
  robotConfig?: StructLike;
  /** The config as stored from JSON text (absent for one stored from a Struct). */
  robotConfigJson?: string;
  lastUpdated?: TimestampLike;
  createdOn?: TimestampLike;
}

/**
 * A part with its config as a plain object: from the `config_json` GetRobotPart returns,
 * else from the part's `robot_config_json`, else from `robot_config` (a Struct), else empty;
 * `storedText` is the part's `robot_config_json` (field 18), present when a client wrote text.
 */
export function machinePartOf(p: RobotPartLike, getConfigJson?: string, storedText: string | undefined = p.robotConfigJson): MachinePart {
  const configJson = getConfigJson || p.robotConfigJson || undefined;
  return withoutUndefined({
    id: p.id,
    name: p.name,
    machineId: p.robot,
    locationId: p.locationId,
    mainPart: p.mainPart,
    config: configOf(p.robotConfig, configJson),
    configJson,
    storedAsText: storedText ? true : undefined,
    lastUpdated: dateOf(p.lastUpdated),
    createdOn: dateOf(p.createdOn),
  });
}

/** The config from its JSON text when the response has one, else from the Struct. */
function configOf(struct: StructLike | undefined, configJson: string | undefined): Record<string, unknown> {
  const value: unknown = configJson ? JSON.parse(configJson) : struct !== undefined ? struct.toJson() : {};
  return isRecord(value) ? value : {};
}

/** viam.app.dataset.v1.Dataset */
export function datasetOf(m: { id: string; name: string; organizationId: string; timeCreated?: TimestampLike; type: number }): Dataset {
  return withoutUndefined({
    id: m.id,
    name: m.name,
    organizationId: m.organizationId,
    createdOn: dateOf(m.timeCreated),
    type: datasetTypeOf(m.type),
    typeNumber: m.type,
  });
}

/** viam.app.v1.Module, the relevant fields. */
export interface ModuleLike {
  moduleId: string;
  name: string;
  organizationId: string;
  versions: { version: string; models: { api: string; model: string }[] }[];
}

/** A registry module with versions sorted ascending by semver. */
export function registryModuleOf(m: ModuleLike): RegistryModule {
  const versions: ModuleVersion[] = m.versions.map((v) => ({
    version: v.version,
    models: v.models.map((x) => ({ api: x.api, model: x.model })),
  }));
  return { moduleId: m.moduleId, name: m.name, organizationId: m.organizationId, versions: sortBySemver(versions, (v) => v.version) };
}

/** viam.app.packages.v1.PackageType values the client distinguishes. */
export const PACKAGE_TYPE_MODULE = 3;
export const PACKAGE_TYPE_ML_TRAINING = 5;

/** viam.app.v1.RegistryItem, the relevant fields. */
export interface RegistryItemLike {
  itemId: string;
  name: string;
  organizationId: string;
  type: number;
  metadata:
    | { case: 'moduleMetadata'; value: { versions: { version: string }[] } }
    | { case: 'mlTrainingMetadata'; value: { versions: { version: string }[] } }
    | { case: string | undefined; value?: unknown };
}

/** A registry item; versions from its module or training-script metadata, ascending. */
export function registryItemOf(m: RegistryItemLike): RegistryItem {
  const type: RegistryItemType = m.type === PACKAGE_TYPE_MODULE ? 'module' : m.type === PACKAGE_TYPE_ML_TRAINING ? 'ml_training' : 'other';
  const md = m.metadata;
  const raw =
    md.case === 'moduleMetadata' || md.case === 'mlTrainingMetadata'
      ? (md.value as { versions: { version: string }[] }).versions.map((v) => v.version)
      : [];
  return { itemId: m.itemId, name: m.name, organizationId: m.organizationId, type, versions: sortBySemver(raw, (v) => v) };
}

/** viam.app.v1.ModuleVersion's deprecation and minimum viam-server (see proto/viam/app/v1/module_version_status.proto). */
export function moduleVersionStatusOf(m: {
  version: string;
  deprecatedStatus?: { message: string };
  minViamServerVersion?: string;
}): ModuleVersionStatus {
  return withoutUndefined({
    version: m.version,
    deprecated: m.deprecatedStatus?.message,
    minViamServerVersion: m.minViamServerVersion || undefined,
  });
}

/** viam.app.v1.ViamServerVersion: the version a part reports, whichever form holds it; undefined when none. */
export function viamServerVersionOf(m: { version: { case: string | undefined; value?: string } } | undefined): string | undefined {
  const value = m?.version.value;
  return value ? value : undefined;
}

/** Drops keys whose value is undefined, so optional fields are absent rather than undefined. */
export function withoutUndefined<T extends object>(o: T): T {
  const record = o as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record)) if (record[key] !== undefined) out[key] = record[key];
  return out as T;
}
