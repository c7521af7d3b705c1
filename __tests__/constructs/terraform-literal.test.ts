import { Token } from 'cdktf';
import { Dataset, Machine, Module, TrainingJob, ModelType } from '../../src/constructs';
import { newStack, resourceOf, synth } from './helpers';

describe('synthesized strings are Terraform JSON literals', () => {
  test('a module env placeholder is escaped, and read back by code as written', () => {
    const { stack } = newStack();
    const machine = new Machine(stack, 'm');
    new Module(machine, 'sensors', {
      moduleId: 'acme:sensors',
      version: '~1.2',
      env: { HOME_DIR: '${environment.HOME}', TEMPLATE: '%{if}', BOTH: '$$${environment.A} ${environment.HOST}' },
    });
    const config = resourceOf(synth(stack), 'fleetform_machine', 'm').config as string;
    expect(config).toContain('"HOME_DIR":"$${environment.HOME}"');
    expect(config).toContain('"BOTH":"$$$${environment.A} $${environment.HOST}"');
    expect(config).toContain('"TEMPLATE":"%%{if}"');
    // What code reads back is the literal, unescaped.
    expect(machine.toMachineConfig().modules?.[0]?.env).toEqual({
      HOME_DIR: '${environment.HOME}',
      TEMPLATE: '%{if}',
      BOTH: '$$${environment.A} ${environment.HOST}',
    });
  });

  test('other kinds escape their strings too; a reference to another resource stays an interpolation', () => {
    const { stack } = newStack();
    const boxes = new Dataset(stack, 'boxes', { name: 'boxes ${x}' });
    new TrainingJob(stack, 'job', {
      dataset: boxes,
      modelName: 'detector',
      modelVersion: '1',
      modelType: ModelType.OBJECT_DETECTION,
      tags: ['a${b}', Token.asString('%{c}'), `${boxes.datasetId}:\${environment.HOST}`],
    });
    const doc = synth(stack);
    expect(resourceOf(doc, 'fleetform_dataset', 'boxes').name).toBe('boxes $${x}');
    const job = resourceOf(doc, 'fleetform_training_job', 'job');
    expect(job.dataset_id).toBe('${fleetform_dataset.boxes.id}');
    expect(job.tags).toEqual(['a$${b}', '%%{c}', '${fleetform_dataset.boxes.id}:$${environment.HOST}']);
  });

  test('${count.index}, ${each.key} and ${each.value} written in a string stay interpolations, as Terraform reads them; a placeholder beside them is still escaped', () => {
    const { stack } = newStack();
    const rows = new Dataset(stack, 'rows', { name: 'rows-${count.index}-${environment.HOST}' });
    rows.addOverride('count', 2);
    const sets = new Dataset(stack, 'sets', { name: '${each.key}/${each.value.suffix}' });
    sets.addOverride('for_each', { a: { suffix: 'x' } });
    const literal = new Dataset(stack, 'literal', { name: 'keep $${count.index}' });
    void literal;
    const doc = synth(stack);
    expect(resourceOf(doc, 'fleetform_dataset', 'rows').name).toBe('rows-${count.index}-$${environment.HOST}');
    expect(resourceOf(doc, 'fleetform_dataset', 'sets').name).toBe('${each.key}/${each.value.suffix}');
    expect(resourceOf(doc, 'fleetform_dataset', 'literal').name).toBe('keep $$${count.index}');
  });
});
