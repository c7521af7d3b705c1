import { TerraformStack, Testing } from 'cdktf';
import { CustomTrainingJob, Dataset, ModelFramework, ModelType, TrainingJob, TrainingStatus } from '../../src/constructs';
import { errorsOf, newStack, resourceOf, synth, warningsOf } from './helpers';

describe('TrainingJob', () => {
  test('synthesizes every SubmitTrainingJob parameter, with wire names and a reference to the dataset', () => {
    const { stack } = newStack();
    const ds = new Dataset(stack, 'boxes');
    new TrainingJob(stack, 'box-detector', {
      dataset: ds,
      organizationId: 'org-1',
      modelName: 'box-detector',
      modelVersion: '1',
      modelType: ModelType.OBJECT_DETECTION,
      modelFramework: ModelFramework.TFLITE,
      tags: ['box', 'pallet'],
      retainOnDelete: true,
    });
    expect(resourceOf(synth(stack), 'fleetform_training_job', 'box-detector')).toEqual({
      organization_id: 'org-1',
      dataset_id: '${fleetform_dataset.boxes.id}',
      model_name: 'box-detector',
      model_version: '1',
      model_type: 'MODEL_TYPE_OBJECT_DETECTION',
      model_framework: 'MODEL_FRAMEWORK_TFLITE',
      tags: ['box', 'pallet'],
      retain_on_delete: true,
    });
  });

  test('optional parameters are left out; a dataset may be given by id', () => {
    const { stack } = newStack();
    new TrainingJob(stack, 'classifier', {
      dataset: 'dataset-123',
      modelName: 'shelf-state',
      modelVersion: '2024-06',
      modelType: ModelType.SINGLE_LABEL_CLASSIFICATION,
      tags: ['empty'],
    });
    expect(resourceOf(synth(stack), 'fleetform_training_job', 'classifier')).toEqual({
      dataset_id: 'dataset-123',
      model_name: 'shelf-state',
      model_version: '2024-06',
      model_type: 'MODEL_TYPE_SINGLE_LABEL_CLASSIFICATION',
      tags: ['empty'],
    });
  });

  test('the enums are the domain wire values', () => {
    expect(ModelType.MULTI_LABEL_CLASSIFICATION).toBe(2);
    expect(ModelFramework.ONNX).toBe(4);
    expect(TrainingStatus.CANCELED).toBe(5);
  });

  test('invalid parameters are errors on the construct fields', () => {
    const { app, stack } = newStack('s');
    new TrainingJob(stack, 'bad', {
      dataset: '',
      modelName: 'bad name',
      modelVersion: 'v 1',
      modelType: ModelType.UNSPECIFIED,
      tags: [],
    });
    expect(errorsOf(app)).toEqual([
      's/bad dataset training-dataset',
      's/bad modelName training-model-name',
      's/bad modelVersion training-model-version',
      's/bad modelType training-model-type',
      's/bad tags training-tags',
    ]);
    expect(() => Testing.synth(stack, true)).toThrow(/\[s\/bad\] modelType: model type is missing or unknown/);
  });

  test('a repeated tag is a warning only', () => {
    const { app, stack } = newStack('s');
    new TrainingJob(stack, 'job', {
      dataset: 'd',
      modelName: 'm',
      modelVersion: '1',
      modelType: ModelType.OBJECT_DETECTION,
      tags: ['box', 'box'],
    });
    expect(errorsOf(app)).toEqual([]);
    expect(warningsOf(app)).toEqual(['s/job tags[1] training-tags']);
    expect(() => Testing.synth(stack, true)).not.toThrow();
  });
});

describe('CustomTrainingJob', () => {
  test('synthesizes every SubmitCustomTrainingJob parameter', () => {
    const { stack } = newStack();
    const ds = new Dataset(stack, 'boxes');
    new CustomTrainingJob(stack, 'custom', {
      dataset: ds,
      registryItemId: 'acme:trainer',
      registryItemVersion: '0.3.0',
      modelName: 'box-custom',
      modelVersion: '1',
      arguments: { epochs: '20' },
      containerVersion: '2024.1',
      retainOnDelete: true,
    });
    expect(resourceOf(synth(stack), 'fleetform_custom_training_job', 'custom')).toEqual({
      dataset_id: '${fleetform_dataset.boxes.id}',
      registry_item_id: 'acme:trainer',
      registry_item_version: '0.3.0',
      model_name: 'box-custom',
      model_version: '1',
      arguments: { epochs: '20' },
      container_version: '2024.1',
      retain_on_delete: true,
    });
  });

  test('minimal form: no arguments, container version or retain flag', () => {
    const { stack } = newStack();
    new CustomTrainingJob(stack, 'custom', {
      dataset: 'd-1',
      organizationId: 'o',
      registryItemId: 'acme:trainer',
      registryItemVersion: '0.2.0',
      modelName: 'm',
      modelVersion: '1',
    });
    expect(resourceOf(synth(stack), 'fleetform_custom_training_job', 'custom')).toEqual({
      organization_id: 'o',
      dataset_id: 'd-1',
      registry_item_id: 'acme:trainer',
      registry_item_version: '0.2.0',
      model_name: 'm',
      model_version: '1',
    });
  });

  test('a malformed registry item id and an empty script version are errors', () => {
    const { app, stack } = newStack('s');
    new CustomTrainingJob(stack, 'custom', {
      dataset: 'd',
      registryItemId: 'trainer',
      registryItemVersion: ' ',
      modelName: 'm',
      modelVersion: '1',
    });
    expect(errorsOf(app)).toEqual(['s/custom registryItemId registry-item-id', 's/custom registryItemVersion training-script-version']);
  });
});

describe('training jobs in a stack', () => {
  test('two jobs (of either kind) may not train the same model version', () => {
    const { app, stack } = newStack('s');
    const ds = new Dataset(stack, 'boxes');
    new TrainingJob(stack, 'first', {
      dataset: ds,
      modelName: 'detector',
      modelVersion: '1',
      modelType: ModelType.OBJECT_DETECTION,
      tags: ['box'],
    });
    new CustomTrainingJob(stack, 'second', {
      dataset: ds,
      registryItemId: 'acme:trainer',
      registryItemVersion: '0.3.0',
      modelName: 'detector',
      modelVersion: '1',
    });
    new TrainingJob(stack, 'third', {
      dataset: ds,
      modelName: 'detector',
      modelVersion: '2',
      modelType: ModelType.OBJECT_DETECTION,
      tags: ['box'],
    });
    expect(errorsOf(app)).toEqual(['s/second modelVersion duplicate-model-version']);
    expect(() => Testing.synth(stack, true)).toThrow(/model "detector" version "1" is also trained by s\/first/);
  });

  test('a dataset of another stack is refused: references stay within a stack', () => {
    const app = Testing.app();
    const data = new TerraformStack(app, 'data');
    const ml = new TerraformStack(app, 'ml');
    const ds = new Dataset(data, 'boxes');
    new TrainingJob(ml, 'job', { dataset: ds, modelName: 'm', modelVersion: '1', modelType: ModelType.OBJECT_DETECTION, tags: ['box'] });
    expect(errorsOf(app)).toEqual(['ml/job dataset dataset-other-stack']);
  });
});
