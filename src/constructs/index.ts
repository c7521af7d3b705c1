/** The construct library: a fleet and its ML training as CDKTF constructs. */
export { FleetProvider, type FleetProviderProps } from './provider';
export { Machine, type MachineConfigProps, type MachineProps } from './machine';
export { Part, type PartProps } from './part';
export { Module, type ModuleProps } from './module';
export { Secret, SecretValueRefusedError } from './secret';
export type { SecretReference } from '../domain/secret-reference';
export { CERTAIN_FAILURE_CODES, type Acknowledgment, type CertainFailureCode } from '../domain/certainty';
export { ModularResource, Component, Service, type ModularResourceProps, type ResourceProps } from './modular-resource';
export { Remote, type RemoteProps } from './remote';
export { Process, type ProcessProps } from './process';
export { Package, type PackageProps, type DeployModelOptions } from './package';
export { MlModel, type MlModelProps } from './ml-model';
export type { IMachine, IModularResource, IModule, IPackage } from './machine-parts';
export { Dataset, type DatasetProps } from './dataset';
export { TrainingJob, type TrainingJobProps } from './training-job';
export { CustomTrainingJob, type CustomTrainingJobProps } from './custom-training-job';
export type { TrainingJobCommonProps } from './training-common';
export type { JsonObject, JsonValue } from './json-value';
export { analyzeApp, type AppAnalysis } from './analysis';
export { formatFleetIssue, type FleetIssue } from './fleet-issue';
export { ModelType, ModelFramework, TrainingStatus } from '../domain';
export { Location, type LocationProps } from './location';
export { Rollout, type RolloutProps, type RolloutWaveProps } from './rollout';
export { Metric, type AnalysisProps, type MetricValue } from './metric';
export { ModelPromotion, type ModelPromotionProps } from './model-promotion';
export { ReconcilePolicy, type LocationWindowsProps, type ReconcilePolicyProps } from './reconcile-policy';
export { Fragment, FragmentTag, type FragmentProps, type FragmentTagProps } from './fragment';
export type { FragmentMod, IFragment, UseFragmentOptions } from './fragment-imports';
export { DataPipeline, type DataPipelineProps, type MqlStage } from './data-pipeline';
export { OrganizationDefaults, type DefaultFragment, type OrganizationDefaultsProps } from './organization-defaults';
export {
  Trigger,
  TriggerEvent,
  type TriggerEval,
  type TriggerEventProps,
  type TriggerNotificationProps,
  type TriggerProps,
} from './trigger';
