import { KindRegistry } from '../kind';
import { datasetKind } from './dataset';
import { machineKind } from './machine';
import { customTrainingJobKind, trainingJobKind } from './training-job';

/** Every resource kind fleetform manages. */
export function defaultKinds(): KindRegistry {
  return new KindRegistry([machineKind, datasetKind, trainingJobKind, customTrainingJobKind]);
}
