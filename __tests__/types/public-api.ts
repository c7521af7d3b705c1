/**
 * Type tests of the public API, checked by `tsc --noEmit` (part of `npm test`): each
 * `@ts-expect-error` line must fail to compile, or tsc reports the directive as unused.
 */
import { App, TerraformStack } from 'cdktf';
import {
  CustomTrainingJob,
  Dataset,
  FleetProvider,
  Machine,
  ModelFramework,
  ModelType,
  ModularResource,
  Module,
  TrainingJob,
  createServiceClient,
  type MachineProps,
  type ModuleProps,
  type TrainingJobProps,
} from 'fleetform';

export function typeTests(): void {
  const stack = new TerraformStack(new App(), 'types');
  new FleetProvider(stack, 'cloud', { organizationId: 'o', locationId: 'l', endpoint: 'https://example.com' });
  // @ts-expect-error an unknown prop of the provider
  new FleetProvider(stack, 'cloud2', { apiKey: 'secret' });

  const machine = new Machine(stack, 'm', { name: 'm' });
  // @ts-expect-error a wrong type: the name is a string
  new Machine(stack, 'm2', { name: 2 });

  const sensors = new Module(machine, 'sensors', { moduleId: 'acme:sensors', version: '~1.2', env: { A: 'b' } });
  // @ts-expect-error a misspelt prop
  new Module(machine, 'typo', { moduleId: 'acme:sensors', verison: '1.2.3' });
  // @ts-expect-error env values are strings
  new Module(machine, 'env', { env: { PORT: 8080 } });

  new ModularResource(machine, 'board', { api: 'rdk:component:board', model: sensors.model('pi') });
  // @ts-expect-error the model is required
  new ModularResource(machine, 'no-model', { api: 'rdk:component:board' });

  const boxes = new Dataset(stack, 'boxes');
  new TrainingJob(stack, 'job', {
    dataset: boxes,
    modelName: 'm',
    modelVersion: '1',
    modelType: ModelType.OBJECT_DETECTION,
    tags: ['box'],
  });
  // @ts-expect-error tags are an array, never a string
  new TrainingJob(stack, 'tags', { dataset: boxes, modelName: 'm', modelVersion: '2', modelType: ModelType.OBJECT_DETECTION, tags: 'cat' });
  // @ts-expect-error the model type is required
  new TrainingJob(stack, 'no-type', { dataset: boxes, modelName: 'm', modelVersion: '3', tags: ['box'] });
  new TrainingJob(stack, 'framework', {
    dataset: boxes,
    modelName: 'm',
    modelVersion: '4',
    modelType: ModelType.OBJECT_DETECTION,
    // @ts-expect-error a framework is one of ModelFramework's values
    modelFramework: 'tflite',
    tags: ['box'],
  });
  new TrainingJob(stack, 'tflite', {
    dataset: boxes,
    modelName: 'm',
    modelVersion: '5',
    modelType: ModelType.OBJECT_DETECTION,
    modelFramework: ModelFramework.TFLITE,
    tags: ['box'],
  });

  new CustomTrainingJob(stack, 'custom', {
    dataset: 'id',
    modelName: 'c',
    modelVersion: '1',
    registryItemId: 'acme:t',
    registryItemVersion: '0.3.0',
  });
  new CustomTrainingJob(stack, 'args', {
    dataset: 'id',
    modelName: 'c',
    modelVersion: '2',
    registryItemId: 'acme:t',
    registryItemVersion: '0.3.0',
    // @ts-expect-error arguments are a map of strings
    arguments: ['--epochs'],
  });

  // Props types are exported for users' own constructs.
  const props: MachineProps & { readonly module?: ModuleProps; readonly job?: TrainingJobProps } = {};
  void props;
  // @ts-expect-error the client needs credentials
  void createServiceClient({ serviceHost: 'http://127.0.0.1:8080' });
}
