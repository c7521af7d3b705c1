import * as path from 'node:path';
import { TerraformOutput, Testing } from 'cdktf';
import { Machine, MlModel } from '../../src/constructs';
import { errorsOf, newStack, resourceOf, synth } from './helpers';

describe('MlModel', () => {
  test('synthesizes a fleetform_ml_model: name from the construct id, the file path absolute, metadata when given', () => {
    const { stack } = newStack();
    const model = new MlModel(stack, 'detector', { version: '1', path: 'models/detector.tflite', modelFramework: 'tflite' });
    expect(resourceOf(synth(stack), 'fleetform_ml_model', 'detector')).toEqual({
      name: 'detector',
      version: '1',
      path: path.resolve('models/detector.tflite'),
      model_framework: 'tflite',
    });
    expect([model.modelName, model.modelVersion]).toEqual(['detector', '1']);
    expect(MlModel.isMlModel(model)).toBe(true);
  });

  test('packageId references the package id assigned at apply', () => {
    const { stack } = newStack();
    const model = new MlModel(stack, 'detector', { version: '1', path: '/m.onnx' });
    new TerraformOutput(stack, 'package', { value: model.packageId });
    expect(JSON.parse(Testing.synth(stack)).output.package.value).toBe('${fleetform_ml_model.detector.id}');
  });

  test('bad props are refused naming the prop, with the rule of the attribute', () => {
    const { stack } = newStack();
    expect(() => new MlModel(stack, 'a', { name: '-x', version: '1', path: '/m.onnx' })).toThrow(/"name".*starts with a letter or digit/s);
    expect(() => new MlModel(stack, 'b', { version: '', path: '/m.onnx' })).toThrow(/"version".*needs a version/s);
    expect(
      () => new MlModel(stack, 'c', { version: '1', path: '/m.onnx', modelKind: 'x' } as unknown as { version: string; path: string }),
    ).toThrow(/modelKind/);
  });

  test('one upload per model version in a stack; a machine deploys an upload by name and version', () => {
    const { app, stack } = newStack('s');
    const first = new MlModel(stack, 'a', { name: 'detector', version: '1', path: '/a.onnx' });
    new MlModel(stack, 'b', { name: 'detector', version: '1', path: '/b.onnx' });
    new MlModel(stack, 'c', { name: 'detector', version: '2', path: '/c.onnx' });
    new Machine(stack, 'm', { locationId: 'loc-1' }).deployModel(first, { name: 'det' });
    expect(errorsOf(app)).toEqual(['s/b version duplicate-model-version']);
  });
});
