import { datasetTypeNumber, datasetTypeOf, DATASET_TYPES } from '../../src/domain/dataset-type';
import type { Desired, Observation } from '../../src/engine/kind';
import { replaceReasonsOf } from '../../src/engine/kind-declaration';
import { datasetDeclaration, datasetKind } from '../../src/engine/kinds/dataset';
import { planResourceChange } from '../../src/engine/plan/resource-core';
import type { StateEntry } from '../../src/engine/state/schema';
import type { JsonObject } from '../../src/engine/json';

const binary = { name: 'boxes', organization_id: 'org-1', type: 'binary' };
const sequence = { ...binary, type: 'sequence' };

function entry(attributes: JsonObject): StateEntry {
  return {
    type: datasetDeclaration.type,
    ids: { id: 'ds-1' },
    outputs: { id: 'ds-1' },
    attributes,
    dependencies: [],
    private: {},
    sensitive_paths: [],
    status: 'ok',
  };
}

function plan(recorded: JsonObject, wanted: JsonObject, observation?: Observation) {
  const desired: Desired = { view: wanted, private: {}, notes: [], problems: [], sensitivePaths: [] };
  return planResourceChange({
    kind: datasetKind,
    desired,
    attributes: {},
    existing: entry(recorded),
    observation,
    salt: 'lineage',
    key: Buffer.alloc(32, 1),
  });
}

describe('the dataset kind', () => {
  test('a different type replaces the dataset, and the plan says it is fixed at creation', () => {
    expect(replaceReasonsOf(datasetDeclaration, binary, sequence)).toEqual(['type']);
    const change = plan(binary, sequence);
    if (change.action === 'create') throw new Error('expected a change of an existing dataset');
    expect(change.action).toBe('replace');
    expect(change.replaceReasons).toEqual(['type']);
    expect(change.judgement.notes).toEqual([
      {
        level: 'warning',
        message:
          "a dataset's type is fixed when it is created: a different type makes a new dataset; replacing a dataset deletes the existing one and what it holds",
      },
    ]);
  });

  test('each replace reason is named in its own note', () => {
    const notes = datasetKind.judge?.({
      current: binary,
      desired: sequence,
      observation: undefined,
      prior: entry(binary),
      replaceReasons: ['name', 'type'],
    }).notes;
    expect(notes?.map((n) => n.message.split(';')[0])).toEqual([
      'a dataset is created under its name: a new name makes a new dataset',
      "a dataset's type is fixed when it is created: a different type makes a new dataset",
    ]);
  });

  test('the same type is no change; a record from before types counts as binary, the type every such dataset has', () => {
    expect(plan(sequence, sequence).action).toBe('no-op');
    const { type: _, ...beforeTypes } = binary;
    expect(replaceReasonsOf(datasetDeclaration, beforeTypes, binary)).toEqual([]);
    expect(replaceReasonsOf(datasetDeclaration, beforeTypes, sequence)).toEqual(['type']);
  });

  test('a type this version does not know stops the plan instead of replacing the dataset', () => {
    const observation: Observation = { view: binary, version: 'boxes', facts: {}, kindData: { unknownType: 7 } };
    const judged = datasetKind.judge?.({ current: binary, desired: sequence, observation, prior: entry(binary), replaceReasons: ['type'] });
    expect(judged?.problems).toEqual([
      expect.objectContaining({ path: 'type', message: expect.stringContaining('does not know (number 7)') }),
    ]);
  });

  test('the declaration takes binary and sequence only, defaulting to binary', () => {
    expect(datasetDeclaration.schema.safeParse({ name: 'boxes', type: 'frames' }).success).toBe(false);
    expect(datasetDeclaration.schema.safeParse({ name: 'boxes', type: 'sequence' }).success).toBe(true);
    expect(datasetDeclaration.attributes.type?.serviceDefault).toBe('binary');
    expect(datasetDeclaration.attributes.type?.forcesReplacement).toBe(true);
  });

  test('types and wire numbers map both ways; an unknown number has no type', () => {
    expect(DATASET_TYPES.map(datasetTypeNumber)).toEqual([0, 1]);
    expect([0, 1, 2].map(datasetTypeOf)).toEqual(['binary', 'sequence', undefined]);
  });
});
