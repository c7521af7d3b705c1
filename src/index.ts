export {};
export * from './api/client';
// The construct library (named exports: they take precedence over same-named client types).
export {
  FleetProvider,
  Machine,
  Module,
  ModularResource,
  Dataset,
  TrainingJob,
  CustomTrainingJob,
  ModelType,
  ModelFramework,
  TrainingStatus,
  analyzeApp,
  formatFleetIssue,
} from './constructs';
// Constructs added later are public as soon as constructs/index.ts exports them.
export * from './constructs';
export type {
  FleetProviderProps,
  MachineProps,
  ModuleProps,
  ModularResourceProps,
  DatasetProps,
  TrainingJobProps,
  CustomTrainingJobProps,
  TrainingJobCommonProps,
  JsonObject,
  JsonValue,
  AppAnalysis,
  FleetIssue,
} from './constructs';
