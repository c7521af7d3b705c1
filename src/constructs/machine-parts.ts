import type { HealthAnalysisAttribute } from '../domain/health-analysis';
import type { Acknowledgment } from '../domain/certainty';
import type { SecretReference } from '../domain/secret-reference';
import type { IConstruct } from 'constructs';
import type { MachineConfig, ModularResource as ModularResourceConfig, ModuleConfig, ModuleType, ResourceListName } from '../domain';
import type { PackageConfig, PackageType } from '../domain/packages';
import type { VersionPolicy } from '../domain/version-policy';
import type { JsonObject } from './json-value';

/**
 * A machine and its parts as the parts and the machine's helpers see each other: the
 * public surface of Machine, Module and ModularResource, which implement these. The
 * helpers (config assembly, checks, scope lookup) depend on these alone, so no module of
 * a construct imports another that imports it back.
 */
export interface IMachine extends IConstruct {
  /** Name of the machine. */
  readonly name: string;
  /** Location, when given. */
  readonly locationId: string | undefined;
  /** The machine id the service assigns, known after apply. */
  readonly machineId: string;
  /** The modules declared inside this machine, in declaration order. */
  readonly modules: IModule[];
  /** The modular resources declared inside this machine, in declaration order. */
  readonly resources: IModularResource[];
  /** The packages declared inside this machine, in declaration order. */
  readonly packages: IPackage[];
  /** The health gate create and update wait on (`timeout`, `settle` as durations), when given. */
  readonly healthGate?: Readonly<Record<string, string>>;
  /** The analyses its health gate runs, by name (bounds only), when given. */
  readonly healthAnalysis?: HealthAnalysisAttribute;
  /** The certain failures of its config left so on purpose, each with its reason. */
  readonly acknowledgments?: readonly Acknowledgment[];
  /** The config document this machine gives its main part, secret env entries included. */
  toMachineConfig(): MachineConfig;
}

/** A module on a machine (see Module). */
export interface IModule extends IConstruct {
  /** The machine whose config holds this module. */
  readonly machine: IMachine;
  /** `registry`, or `local` when `executablePath` is given. */
  readonly type: ModuleType;
  /** Name of this module instance. */
  readonly name: string;
  /** Registry module id, when given. */
  readonly moduleId: string | undefined;
  /** The version in its stored form, or undefined: pinned at first apply. */
  readonly version: string | undefined;
  /** The parsed update policy, when `version` is a valid one. */
  readonly versionPolicy: VersionPolicy | undefined;
  /** Local modules: the executable path. */
  readonly executablePath: string | undefined;
  /** The `env` entries as given. */
  readonly env: Readonly<Record<string, string>>;
  /** The `sensitiveEnv` entries as given. */
  readonly sensitiveEnv: Readonly<Record<string, string>>;
  /** Names of the environment entries that are secrets. */
  readonly sensitiveEnvKeys: readonly string[];
  /** The env entries given by reference (Secret), by env key. */
  readonly secretReferences?: Readonly<Record<string, SecretReference>>;
  /** The full model triplet `<moduleId>:<modelName>` of one of this module's models. */
  model(modelName: string): string;
  /** This module's entry of the machine config's `modules` list, its whole env (secrets included). */
  toConfig(): ModuleConfig;
}

/** A training job as a machine deploying its model sees it (see TrainingJob). */
export interface ITrainedModelSource extends IConstruct {
  /** Terraform's name of the resource, for `depends_on`. */
  readonly fqn: string;
  readonly modelName: string;
  readonly modelVersion: string;
  readonly organizationId: string | undefined;
}

/** A registry package on a machine (see Package). */
export interface IPackage extends IConstruct {
  /** The machine whose config holds this package. */
  readonly machine: IMachine;
  /** Local name of the package. */
  readonly name: string;
  /** Registry package id `<organization id>/<package name>`. */
  readonly package: string;
  readonly type: PackageType;
  /** The placeholder of the package's folder on the machine. */
  readonly path: string;
  /** The training job whose model it deploys, if any: synthesized in `deploy_models`, not in `config`. */
  readonly trainingJob: ITrainedModelSource | undefined;
  /** This package's entry of the machine config's `packages` list. */
  toConfig(): PackageConfig;
}

/** A modular resource on a machine (see ModularResource). */
export interface IModularResource extends IConstruct {
  /** The machine whose config holds this resource. */
  readonly machine: IMachine;
  /** Name of this resource. */
  readonly name: string;
  /** API triplet. */
  readonly api: string;
  /** Model triplet. */
  readonly model: string;
  /** Attributes as given. */
  readonly attributes: JsonObject;
  /** Dependencies as given: resources or names. */
  readonly dependsOn: ReadonlyArray<IModularResource | string>;
  /** `services` for a service API, else `components`. */
  readonly configList: ResourceListName;
  /** Names of the dependencies, in the order given. */
  readonly dependsOnNames: string[];
  /** This resource's entry of the machine config. */
  toConfig(): ModularResourceConfig;
}
