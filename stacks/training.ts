import { TerraformStack } from 'cdktf';
import type { Construct } from 'constructs';
import { CustomTrainingJob, Dataset, FleetProvider, ModelFramework, ModelType, TrainingJob } from 'fleetform';

/**
 * Model training on the boxes the inspection station photographs: one job on the
 * service's built-in trainer and one running the `acme:trainer` script from the registry.
 */
export class TrainingStack extends TerraformStack {
  constructor(scope: Construct, id: string) {
    super(scope, id);
    new FleetProvider(this, 'cloud');
    const boxes = new Dataset(this, 'boxes', { name: 'warehouse-boxes' });
    new TrainingJob(this, 'box-detector', {
      dataset: boxes,
      modelName: 'box-detector',
      modelVersion: '1',
      modelType: ModelType.OBJECT_DETECTION,
      modelFramework: ModelFramework.TFLITE,
      tags: ['box', 'pallet'],
      // A trained model outlives a destroy: the next apply takes the job back into state.
      retainOnDelete: true,
    });
    new CustomTrainingJob(this, 'box-detector-custom', {
      dataset: boxes,
      registryItemId: 'acme:trainer',
      registryItemVersion: '0.3.0',
      modelName: 'box-detector-custom',
      modelVersion: '1',
      arguments: { epochs: '20', learning_rate: '0.001' },
      retainOnDelete: true,
    });
  }
}
