import { TerraformOutput, Testing } from 'cdktf';
import { Dataset } from '../../src/constructs';
import { errorsOf, newStack, resourceOf, synth } from './helpers';

describe('Dataset', () => {
  test('synthesizes a fleetform_dataset with its name and organization', () => {
    const { stack } = newStack();
    new Dataset(stack, 'boxes', { name: 'warehouse-boxes', organizationId: 'org-1' });
    expect(resourceOf(synth(stack), 'fleetform_dataset', 'boxes')).toEqual({ name: 'warehouse-boxes', organization_id: 'org-1' });
  });

  test('name defaults to the construct id; organization to the provider at plan time', () => {
    const { stack } = newStack();
    new Dataset(stack, 'boxes');
    expect(resourceOf(synth(stack), 'fleetform_dataset', 'boxes')).toEqual({ name: 'boxes' });
  });

  test("type is binary or sequence; left out, the dataset is binary (the service's default) and nothing is synthesized", () => {
    const { app, stack } = newStack('s');
    const frames = new Dataset(stack, 'frames', { type: 'sequence' });
    new Dataset(stack, 'images', { type: 'binary' });
    expect(frames.type).toBe('sequence');
    expect(resourceOf(synth(stack), 'fleetform_dataset', 'frames')).toEqual({ name: 'frames', type: 'sequence' });
    expect(resourceOf(synth(stack), 'fleetform_dataset', 'images')).toEqual({ name: 'images', type: 'binary' });
    expect(errorsOf(app)).toEqual([]);
    // @ts-expect-error the type is one of the two the service knows
    expect(() => new Dataset(newStack().stack, 'bad', { type: 'frames' })).toThrow(/type/);
  });

  test('datasetId references the id assigned at apply', () => {
    const { stack } = newStack();
    const ds = new Dataset(stack, 'boxes');
    new TerraformOutput(stack, 'dataset-id', { value: ds.datasetId });
    expect(JSON.parse(Testing.synth(stack)).output['dataset-id'].value).toBe('${fleetform_dataset.boxes.id}');
  });

  test('dataset names are unique per organization within a stack, and not empty', () => {
    const { app, stack } = newStack('s');
    new Dataset(stack, 'a', { name: 'boxes' });
    new Dataset(stack, 'b', { name: 'boxes' });
    new Dataset(stack, 'c', { name: 'boxes', organizationId: 'other-org' });
    new Dataset(stack, 'd', { name: '' });
    expect(errorsOf(app)).toEqual(['s/b name duplicate-dataset-name', 's/d name dataset-name']);
  });
});
