import {
  canCancel,
  canDeleteCompleted,
  checkCustomTrainingJobParams,
  checkRegistryItemId,
  checkTrainingJobParams,
  FleetformError,
  isTerminal,
  ModelFramework,
  modelFrameworkName,
  ModelType,
  modelTypeName,
  parseModelFramework,
  parseModelType,
  parseTrainingStatus,
  TrainingStatus,
  trainingStatusName,
  type CustomTrainingJobParams,
  type TrainingJobParams,
} from '../../src/domain';

describe('wire enums', () => {
  test('numeric values match the wire protocol', () => {
    expect(ModelType).toEqual({ UNSPECIFIED: 0, SINGLE_LABEL_CLASSIFICATION: 1, MULTI_LABEL_CLASSIFICATION: 2, OBJECT_DETECTION: 3 });
    expect(ModelFramework).toEqual({ UNSPECIFIED: 0, TFLITE: 1, TENSORFLOW: 2, PYTORCH: 3, ONNX: 4 });
    expect(TrainingStatus).toEqual({ UNSPECIFIED: 0, PENDING: 1, IN_PROGRESS: 2, COMPLETED: 3, FAILED: 4, CANCELED: 5, CANCELING: 6 });
  });
  test.each([
    [ModelType.OBJECT_DETECTION, 'MODEL_TYPE_OBJECT_DETECTION'],
    [ModelType.SINGLE_LABEL_CLASSIFICATION, 'MODEL_TYPE_SINGLE_LABEL_CLASSIFICATION'],
    [ModelType.MULTI_LABEL_CLASSIFICATION, 'MODEL_TYPE_MULTI_LABEL_CLASSIFICATION'],
    [ModelType.UNSPECIFIED, 'MODEL_TYPE_UNSPECIFIED'],
  ] as const)('model type %d <-> %s', (v, name) => {
    expect(modelTypeName(v)).toBe(name);
    expect(parseModelType(name)).toBe(v);
  });
  test.each([
    ['SINGLE_LABEL_CLASSIFICATION', ModelType.SINGLE_LABEL_CLASSIFICATION], // the TypeScript SDK's spelling
    ['object-detection', ModelType.OBJECT_DETECTION],
    ['model_type_multi_label_classification', ModelType.MULTI_LABEL_CLASSIFICATION],
  ])('model type alias %j', (name, v) => expect(parseModelType(name)).toBe(v));
  test.each([
    [ModelFramework.TFLITE, 'MODEL_FRAMEWORK_TFLITE'],
    [ModelFramework.ONNX, 'MODEL_FRAMEWORK_ONNX'],
    [ModelFramework.PYTORCH, 'MODEL_FRAMEWORK_PYTORCH'],
    [ModelFramework.TENSORFLOW, 'MODEL_FRAMEWORK_TENSORFLOW'],
  ] as const)('framework %d <-> %s', (v, name) => {
    expect(modelFrameworkName(v)).toBe(name);
    expect(parseModelFramework(name)).toBe(v);
    expect(parseModelFramework(name.replace('MODEL_FRAMEWORK_', '').toLowerCase())).toBe(v);
  });
  test.each([
    [TrainingStatus.PENDING, 'TRAINING_STATUS_PENDING'],
    [TrainingStatus.IN_PROGRESS, 'TRAINING_STATUS_IN_PROGRESS'],
    [TrainingStatus.COMPLETED, 'TRAINING_STATUS_COMPLETED'],
    [TrainingStatus.FAILED, 'TRAINING_STATUS_FAILED'],
    [TrainingStatus.CANCELED, 'TRAINING_STATUS_CANCELED'],
    [TrainingStatus.CANCELING, 'TRAINING_STATUS_CANCELING'],
    [TrainingStatus.UNSPECIFIED, 'TRAINING_STATUS_UNSPECIFIED'],
  ] as const)('status %d <-> %s', (v, name) => {
    expect(trainingStatusName(v)).toBe(name);
    expect(parseTrainingStatus(name)).toBe(v);
  });
  test.each([
    [() => parseModelType('SEGMENTATION'), 'MODEL_TYPE_OBJECT_DETECTION'],
    [() => parseModelFramework('keras'), 'MODEL_FRAMEWORK_ONNX'],
    [() => parseTrainingStatus('running'), 'TRAINING_STATUS_IN_PROGRESS'],
  ])('unknown names throw with the accepted names (%#)', (fn, listed) => {
    expect(fn).toThrow(FleetformError);
    try {
      fn();
    } catch (err) {
      expect((err as FleetformError).hint).toContain(listed);
    }
  });
});

describe('job status rules', () => {
  // [status, canCancel, canDeleteCompleted/isTerminal]
  test.each<[TrainingStatus, boolean, boolean]>([
    [TrainingStatus.UNSPECIFIED, false, false],
    [TrainingStatus.PENDING, true, false],
    [TrainingStatus.IN_PROGRESS, true, false],
    [TrainingStatus.COMPLETED, false, true],
    [TrainingStatus.FAILED, false, true],
    [TrainingStatus.CANCELED, false, true], // decision: canceled counts as completed
    [TrainingStatus.CANCELING, false, false],
  ])('status %d: cancel %s, delete %s', (status, cancel, del) => {
    expect(canCancel(status)).toBe(cancel);
    expect(canDeleteCompleted(status)).toBe(del);
    expect(isTerminal(status)).toBe(del);
  });
});

describe('checkRegistryItemId', () => {
  test.each(['acme:trainer', 'org-uuid-1:my_script'])('valid %j', (id) => expect(checkRegistryItemId(id)).toEqual([]));
  test.each(['trainer', 'acme:', ':x', 'a:b:c', 'ac me:x'])('invalid %j', (id) => {
    expect(checkRegistryItemId(id, 'job.registry_item_id')).toEqual([
      expect.objectContaining({ severity: 'error', code: 'registry-item-id', path: 'job.registry_item_id' }),
    ]);
  });
});

const job: TrainingJobParams = {
  datasetId: 'ds-1',
  modelName: 'box-detector',
  modelVersion: '2024-05-01T10-00-00',
  modelType: ModelType.OBJECT_DETECTION,
  tags: ['box', 'pallet'],
};

describe('checkTrainingJobParams', () => {
  test('valid', () => {
    expect(checkTrainingJobParams(job)).toEqual([]);
    expect(checkTrainingJobParams({ ...job, modelFramework: ModelFramework.TFLITE, modelVersion: '1.0.0' })).toEqual([]);
  });
  test.each<[Partial<TrainingJobParams>, string, string, 'error' | 'warning']>([
    [{ datasetId: '' }, 'training-dataset', 'dataset_id', 'error'],
    [{ modelName: '' }, 'training-model-name', 'model_name', 'error'],
    [{ modelName: 'box detector' }, 'training-model-name', 'model_name', 'error'],
    [{ modelVersion: '' }, 'training-model-version', 'model_version', 'error'],
    [{ modelVersion: 'v 1' }, 'training-model-version', 'model_version', 'error'],
    [{ modelType: ModelType.UNSPECIFIED }, 'training-model-type', 'model_type', 'error'],
    [{ modelType: 9 as ModelType }, 'training-model-type', 'model_type', 'error'],
    [{ modelFramework: 7 as ModelFramework }, 'training-model-framework', 'model_framework', 'error'],
    [{ tags: [] }, 'training-tags', 'tags', 'error'],
    [{ tags: ['box', ''] }, 'training-tags', 'tags[1]', 'error'],
    [{ tags: ['box', 'box'] }, 'training-tags', 'tags[1]', 'warning'],
  ])('%j -> %s at %s', (change, code, path, severity) => {
    expect(checkTrainingJobParams({ ...job, ...change }, 'jobs.train')).toEqual([
      expect.objectContaining({ code, path: `jobs.train.${path}`, severity }),
    ]);
  });
  test('every problem at once', () => {
    expect(
      checkTrainingJobParams({ datasetId: '', modelName: '', modelVersion: '', modelType: ModelType.UNSPECIFIED, tags: [] }),
    ).toHaveLength(5);
  });
});

const custom: CustomTrainingJobParams = {
  datasetId: 'ds-1',
  registryItemId: 'acme:trainer',
  registryItemVersion: '0.3.0',
  modelName: 'custom-model',
  modelVersion: '1',
  arguments: { epochs: '10' },
};

describe('checkCustomTrainingJobParams', () => {
  test('valid', () => expect(checkCustomTrainingJobParams(custom)).toEqual([]));
  test.each<[Partial<CustomTrainingJobParams>, string, string]>([
    [{ registryItemId: 'trainer' }, 'registry-item-id', 'registry_item_id'],
    [{ registryItemVersion: '' }, 'training-script-version', 'registry_item_version'],
    [{ arguments: { '': 'x' } }, 'training-arguments', 'arguments'],
    [{ modelName: 'a/b' }, 'training-model-name', 'model_name'],
    [{ datasetId: ' ' }, 'training-dataset', 'dataset_id'],
  ])('%j -> %s', (change, code, path) => {
    expect(checkCustomTrainingJobParams({ ...custom, ...change })).toEqual([expect.objectContaining({ code, path, severity: 'error' })]);
  });
});
