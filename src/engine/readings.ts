/**
 * The engine's face for reading machines, as the dashboard and `fleetform status` show them:
 * health, module cards, config views, runs, pipeline runs, training progress, and the status
 * sources they are read from.
 */
export { machineHealth, type MachineHealth } from './kinds/machine-health';
export { moduleCards, type ModuleCard } from './kinds/module-cards';
export { configView } from './kinds/machine-config-view';
export { machineRuns, runKey, type MachineRun } from './kinds/machine-runs';
export { pipelineRuns, type PipelineRuns } from './kinds/pipeline-runs';
export { trainingProgress, type TrainingProgress } from './kinds/training-progress';
export { modelHistories, withFailedTraining, type ModelHistory } from './kinds/model-history';
export { machineRunDiff, plannedMachineNames, renderMachineRunDiff } from './kinds/machine-resolved-diff';
export { withSecretEnv } from './kinds/machine-secrets';
export { machineKind, runningModuleVersion } from './kinds/machine';
export { locationKind } from './kinds/location';
export { fragmentKind } from './kinds/fragment';
export { serviceStatusSource } from './health/service-status-source';
export type { MachineStatusSource } from './health/machine-status-source';
export { partConfig } from './fragment-fetch';
export { diffJson } from './diff';
