/**
 * Plain data the service client returns: ids, numeric domain enums and `Date`s, never
 * protobuf message objects.
 */
import type { ModelFramework, ModelType, TrainingStatus } from '../../domain/training';
import type { DatasetType } from '../../domain/dataset-type';
import type { ModuleVersion } from '../../domain/registry';
import type { JsonObject } from '../../domain/json-value';

/** A training job's metadata (the fields of TrainingJobMetadata). */
export interface TrainingJob {
  readonly id: string;
  readonly datasetId: string;
  readonly organizationId: string;
  readonly modelName: string;
  readonly modelVersion: string;
  readonly modelType: ModelType;
  readonly modelFramework: ModelFramework;
  readonly isCustomJob: boolean;
  readonly registryItemId: string;
  readonly registryItemVersion: string;
  readonly status: TrainingStatus;
  /** Why a job failed (google.rpc.Status code and message), when it did. */
  readonly errorStatus?: { readonly code: number; readonly message: string };
  readonly createdOn?: Date;
  readonly lastModified?: Date;
  readonly trainingStarted?: Date;
  readonly trainingEnded?: Date;
  readonly syncedModelId: string;
  readonly tags: readonly string[];
  readonly arguments: Readonly<Record<string, string>>;
  readonly containerVersion: string;
}

/** One line of a training job's log. */
export interface TrainingJobLogEntry {
  readonly level: string;
  readonly time?: Date;
  readonly message: string;
}

/** Extra fields of a managed training job that the seed's positional form leaves out. */
export interface SubmitTrainingJobOptions {
  /** Defaults to UNSPECIFIED (the service picks), which is what the official client sends. */
  readonly modelFramework?: ModelFramework;
}

/** Extra fields of a custom training job that the seed's positional form leaves out. */
export interface SubmitCustomTrainingJobOptions {
  /** Arguments passed to the training script. */
  readonly arguments?: Readonly<Record<string, string>>;
  /** Training container version; empty lets the service choose. */
  readonly containerVersion?: string;
}

/** An organization the key can see. */
export interface Organization {
  readonly id: string;
  readonly name: string;
}

/** A location of an organization. */
export interface Location {
  readonly id: string;
  readonly name: string;
}

/** A machine (the service's "robot"). */
export interface Machine {
  readonly id: string;
  readonly name: string;
  readonly locationId: string;
  readonly createdOn?: Date;
}

/** A part of a machine with its configuration as plain JSON. */
export interface MachinePart {
  readonly id: string;
  readonly name: string;
  readonly machineId: string;
  readonly locationId: string;
  readonly mainPart: boolean;
  readonly config: Record<string, unknown>;
  /**
   * The config as the JSON text it was read from, when there was one: `config` holds its
   * integers above 2^53 as doubles; pass it to `updateMachinePart` to write them as read.
   */
  readonly configJson?: string;
  /**
   * Whether the service holds the config as the JSON text a client wrote (its key order is
   * that writer's); false for one stored from a Struct, whose keys the service reshuffled.
   */
  readonly storedAsText?: boolean;
  /** Time of the last config change: pass it back to `updateMachinePart` for optimistic concurrency. */
  readonly lastUpdated?: Date;
  readonly createdOn?: Date;
}

/** A registry module with its versions in ascending semver order. */
export interface RegistryModule {
  readonly moduleId: string;
  readonly name: string;
  readonly organizationId: string;
  readonly versions: readonly ModuleVersion[];
}

/** Kind of a registry item. */
export type RegistryItemType = 'module' | 'ml_training' | 'other';

/** A registry item (module or training script) with its version strings, ascending. */
export interface RegistryItem {
  readonly itemId: string;
  readonly name: string;
  readonly organizationId: string;
  readonly type: RegistryItemType;
  readonly versions: readonly string[];
  /** A module's versions, ascending, with what the registry says of each (deprecation, minimum viam-server). */
  readonly moduleVersions?: readonly ModuleVersionStatus[];
}

/** What the registry says of one module version besides its models. */
export interface ModuleVersionStatus {
  readonly version: string;
  /** Set when deprecated: its message (may be empty). */
  readonly deprecated?: string;
  readonly minViamServerVersion?: string;
}

/** A dataset. */
export interface Dataset {
  readonly id: string;
  readonly name: string;
  readonly organizationId: string;
  readonly createdOn?: Date;
  /** Absent when the service answers a type this version does not know (its number is `typeNumber`). */
  readonly type?: DatasetType;
  readonly typeNumber: number;
}

/** Where a data pipeline reads, as the client names it. */
export type PipelineSource = 'standard' | 'hot_storage' | 'unspecified' | 'pipeline_sink';

/** A data pipeline as the service reports it (the service does not report backfill). */
export interface DataPipelineDetail {
  readonly id: string;
  readonly organizationId: string;
  readonly name: string;
  /** The stages, each BSON document read as JSON (keys in their order). */
  readonly stages: readonly JsonObject[];
  readonly schedule: string;
  readonly enabled: boolean;
  /** Undefined when the service reports none (it reads the standard store then). */
  readonly dataSourceType?: PipelineSource;
  readonly createdOn?: Date;
  readonly updatedAt?: Date;
}

export type PipelineRunStatus = 'unspecified' | 'scheduled' | 'started' | 'completed' | 'failed';

/** One run of a data pipeline: when it ran, the window of data it read, how it ended. */
export interface PipelineRun {
  readonly id: string;
  readonly status: PipelineRunStatus;
  readonly startTime?: Date;
  readonly endTime?: Date;
  readonly dataStartTime?: Date;
  readonly dataEndTime?: Date;
  /** Set when the run failed. */
  readonly errorMessage?: string;
}
