import { Testing } from 'cdktf';
import { Dataset, Machine, ModelType, ModularResource, Module, Package, TrainingJob } from '../../src/constructs';
import { errorsOf, issueAt, newStack, resourceOf, synth, warningsOf } from './helpers';
import { unescapeTemplate } from '../../src/domain';

function inspector(stack: ConstructLike): { machine: Machine; tflite: Module } {
  const machine = new Machine(stack, 'inspector');
  const tflite = new Module(machine, 'tflite', { moduleId: 'viam:mlmodel-tflite', version: '^1' });
  return { machine, tflite };
}
type ConstructLike = ConstructorParameters<typeof Machine>[0];

function configOf(stack: ReturnType<typeof newStack>['stack']): Record<string, unknown> {
  return JSON.parse(unescapeTemplate(resourceOf(synth(stack), 'fleetform_machine', 'inspector').config as string)) as Record<
    string,
    unknown
  >;
}

describe('Package', () => {
  test('a machine synthesizes its packages; path is the placeholder the attributes use', () => {
    const { stack } = newStack();
    const { machine, tflite } = inspector(stack);
    const detector = new Package(machine, 'detector', {
      name: 'box-detector',
      package: 'acme-org-id/box-detector',
      version: '2026-11-01T10-00-00',
      type: 'ml_model',
    });
    new Package(machine, 'maps', { package: 'acme-org-id/floor', type: 'slam_map' });
    new ModularResource(machine, 'mlmodel', {
      api: 'rdk:service:mlmodel',
      model: tflite.model('tflite_cpu'),
      attributes: { model_path: `${detector.path}/model.tflite` },
    });
    expect(detector.path).toBe('${packages.ml_model.box-detector}');
    expect(machine.packages.map((p) => p.name)).toEqual(['box-detector', 'maps']);
    const config = configOf(stack);
    expect(config.packages).toEqual([
      { name: 'box-detector', package: 'acme-org-id/box-detector', version: '2026-11-01T10-00-00', type: 'ml_model' },
      { name: 'maps', package: 'acme-org-id/floor', version: 'latest', type: 'slam_map' },
    ]);
    expect((config.services as Array<{ attributes: unknown }>)[0]?.attributes).toEqual({
      model_path: '${packages.ml_model.box-detector}/model.tflite',
    });
    expect(errorsOf(stack)).toEqual([]);
  });

  test('a machine without packages synthesizes no packages key', () => {
    const { stack } = newStack();
    inspector(stack);
    expect(configOf(stack)).not.toHaveProperty('packages');
  });

  test("an unknown package name is a warning at the field, naming the resource, the machine's packages and the fix; synth goes on", () => {
    const { app, stack } = newStack('s');
    const { machine, tflite } = inspector(stack);
    new Package(machine, 'detector', { package: 'acme-org-id/box-detector', type: 'ml_model' });
    new ModularResource(machine, 'mlmodel', {
      api: 'rdk:service:mlmodel',
      model: tflite.model('tflite_cpu'),
      attributes: { model_path: '${packages.ml_model.detektor}/m.tflite' },
    });
    // What reads the placeholder certainly fails: an error in code.
    expect(errorsOf(app)).toEqual(['s/inspector/mlmodel attributes.model_path package-placeholder']);
    expect(warningsOf(app)).toEqual([]);
    expect(issueAt(app, 's/inspector/mlmodel', 'attributes.model_path').message).toBe(
      'resource "mlmodel": placeholder ${packages.ml_model.detektor} is left as written, and what reads it fails: failed to find a package named "detektor"; ' +
        'this machine\'s packages: detector (ml_model); declare a package named "detektor" on the machine (a Package construct, or a "packages" entry)',
    );
    expect(() => Testing.synth(stack, true)).toThrow(/failed to find a package named "detektor"/);
  });

  test('a type mismatch in a module env is an error on the module; a package of another machine is unknown here', () => {
    const { app, stack } = newStack('s');
    const { machine } = inspector(stack);
    const other = new Machine(stack, 'other');
    const map = new Package(other, 'map', { package: 'acme-org-id/floor', type: 'slam_map' });
    new Package(machine, 'floor', { package: 'acme-org-id/floor', type: 'slam_map' });
    new Module(machine, 'slam', { moduleId: 'acme:slam', version: '^1', env: { MAP: '${packages.ml_model.floor}', OTHER: map.path } });
    expect(errorsOf(app)).toEqual(['s/inspector/slam env.MAP package-placeholder', 's/inspector/slam env.OTHER package-placeholder']);
    expect(warningsOf(app)).toEqual([]);
    expect(issueAt(app, 's/inspector/slam', 'env.MAP').message).toBe(
      'module "acme_slam": placeholder ${packages.ml_model.floor} is left as written, and what reads it fails: it is looking for a package of type ml_model ' +
        'but a package of type slam_map was found; write ${packages.slam_map.floor}',
    );
  });

  test('entries are checked on the Package: name rule, id, duplicates; props are strict', () => {
    const { app, stack } = newStack('s');
    const { machine } = inspector(stack);
    new Package(machine, 'a', { name: 'x y', package: 'acme-org-id/a', type: 'archive' });
    new Package(machine, 'b', { name: 'dup', package: 'no-org', type: 'archive' });
    new Package(machine, 'c', { name: 'dup', package: 'acme-org-id/c', type: 'module' });
    // A package the machine cannot use certainly fails alone: errors in code.
    expect(errorsOf(app)).toEqual([
      's/inspector/a name package-name',
      's/inspector/b package package-id',
      's/inspector/c name duplicate-package-name',
    ]);
    expect(() => new Package(machine, 'd', { package: 'acme-org-id/d', type: 'ml_training' as 'ml_model' })).toThrow(/Package: "type"/);
    expect(() => new Package(stack, 'e', { package: 'acme-org-id/e', type: 'ml_model' })).toThrow(
      /Package must be declared inside a Machine/,
    );
  });

  test("deployModel: an ml_model package at the job's model version, synthesized in deploy_models, the machine depending on the job", () => {
    const { app, stack } = newStack('s');
    const { machine, tflite } = inspector(stack);
    const boxes = new Dataset(stack, 'boxes', { name: 'boxes' });
    const job = new TrainingJob(stack, 'detector', {
      dataset: boxes,
      modelName: 'box-detector',
      modelVersion: '3',
      modelType: ModelType.OBJECT_DETECTION,
      tags: ['box'],
    });
    const model = machine.deployModel(job, { name: 'detector' });
    new ModularResource(machine, 'mlmodel', {
      api: 'rdk:service:mlmodel',
      model: tflite.model('tflite_cpu'),
      attributes: { model_path: `${model.path}/model.tflite`, bad: '${packages.ml_model.other}' },
    });
    expect(model.path).toBe('${packages.ml_model.detector}');
    expect(model.trainingJob).toBe(job);
    expect(errorsOf(app)).toEqual(['s/inspector/mlmodel attributes.bad package-placeholder']);
    new Package(machine, 'x', { name: 'other', package: 'acme-org-id/other', type: 'ml_model' });
    expect(errorsOf(app)).toEqual([]);
    expect(warningsOf(app)).toEqual([]);
    const resource = resourceOf(synth(stack), 'fleetform_machine', 'inspector');
    expect(resource.deploy_models).toEqual({ detector: 'box-detector@3' });
    expect(resource.depends_on).toEqual(['fleetform_training_job.detector']);
    machine.deployModel(job, { name: 'again' });
    expect(resourceOf(synth(stack), 'fleetform_machine', 'inspector').depends_on).toEqual(['fleetform_training_job.detector']);
    const config = JSON.parse(unescapeTemplate(resource.config as string)) as { packages: Array<{ name: string }> };
    expect(config.packages.map((p) => p.name)).toEqual(['other']);
  });
});
