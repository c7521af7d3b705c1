import type { App } from 'cdktf';
import { TrainingStack } from './training';
import { WarehouseStack } from './warehouse';

/** The example fleet: the warehouse machines and the training of their box detector. */
export function buildFleet(app: App): void {
  new WarehouseStack(app, 'warehouse');
  new TrainingStack(app, 'training');
}
