/** The construct library: a fleet and its ML training as CDKTF constructs. */
export { FleetProvider, type FleetProviderProps } from './provider';
export { Machine, type MachineProps } from './machine';
export { Module, type ModuleProps } from './module';
export { ModularResource, type ModularResourceProps } from './modular-resource';
export type { IMachine, IModularResource, IModule } from './machine-parts';
export { Dataset, type DatasetProps } from './dataset';
export { TrainingJob, type TrainingJobProps } from './training-job';
export { CustomTrainingJob, type CustomTrainingJobProps } from './custom-training-job';
export type { TrainingJobCommonProps } from './training-common';
export type { JsonObject, JsonValue } from './json-value';
export { analyzeApp, type AppAnalysis } from './analysis';
export { formatFleetIssue, type FleetIssue } from './fleet-issue';
export { ModelType, ModelFramework, TrainingStatus } from '../domain';
export { Location, type LocationProps } from './location';
export { Fragment, FragmentTag, type FragmentProps, type FragmentTagProps } from './fragment';
export type { FragmentMod, IFragment, UseFragmentOptions } from './fragment-imports';
