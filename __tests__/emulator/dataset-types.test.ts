/** Dataset types: created binary unless asked, listed by type when asked, and what training does with a sequence dataset. */
import type { Client } from '@connectrpc/connect';
import { EmulatorService, type EmulatorServiceType } from '../../src/api/emulator-control';
import { DatasetType } from '../../src/api/own-messages';
import { DatasetService, loadServices, type DatasetServiceType, type MLTrainingServiceType } from '../../src/api/services';
import { ModelType, TrainingStatus } from '../../src/domain';
import { useEmulator } from './fixture';
import { clientOf, codeOf } from './helpers';

const fx = useEmulator({ clock: 'frozen' });
let datasets: Client<DatasetServiceType>;
let ml: Client<MLTrainingServiceType>;
let controls: Client<EmulatorServiceType>;
let org: string;
beforeAll(async () => {
  datasets = await clientOf(fx.emulator, DatasetService);
  ml = await clientOf(fx.emulator, (await loadServices()).mlTraining);
  controls = await clientOf(fx.emulator, EmulatorService);
  org = fx.emulator.credentials.organizationId;
});

const MINE = new Set(['default', 'frames', 'runs', 'images']);

/** The organization's datasets of the first test as [name, type], by name (a frozen clock creates them all at one instant). */
const typesOf = async (type?: DatasetType) =>
  (await datasets.listDatasetsByOrganizationID({ organizationId: org, ...(type === undefined ? {} : { type }) })).datasets
    .filter((d) => MINE.has(d.name))
    .map((d): [string, DatasetType] => [d.name, d.type])
    .sort(([a], [b]) => a.localeCompare(b));

test('a dataset is binary unless created as sequences; a list asked for one type holds that type only, unasked every type', async () => {
  const frames = await datasets.createDataset({ name: 'frames', organizationId: org });
  const runs = await datasets.createDataset({ name: 'runs', organizationId: org, type: DatasetType.SEQUENCE_DATA });
  const images = await datasets.createDataset({ name: 'images', organizationId: org, type: DatasetType.BINARY_DATA });
  const byIds = await datasets.listDatasetsByIDs({ ids: [frames.id, runs.id, images.id] });
  expect(byIds.datasets.map((d) => [d.name, d.type])).toEqual([
    ['frames', DatasetType.BINARY_DATA],
    ['runs', DatasetType.SEQUENCE_DATA],
    ['images', DatasetType.BINARY_DATA],
  ]);
  // The organization's own first dataset (made with it) is binary too.
  expect(await typesOf()).toEqual([
    ['default', DatasetType.BINARY_DATA],
    ['frames', DatasetType.BINARY_DATA],
    ['images', DatasetType.BINARY_DATA],
    ['runs', DatasetType.SEQUENCE_DATA],
  ]);
  expect(await typesOf(DatasetType.SEQUENCE_DATA)).toEqual([['runs', DatasetType.SEQUENCE_DATA]]);
  expect((await typesOf(DatasetType.BINARY_DATA)).map(([name]) => name)).toEqual(['default', 'frames', 'images']);
});

test('a type DatasetType does not name is InvalidArgument, at create and at list', async () => {
  expect(await codeOf(datasets.createDataset({ name: 'odd', organizationId: org, type: 7 as DatasetType }))).toBe('InvalidArgument');
  expect(await codeOf(datasets.listDatasetsByOrganizationID({ organizationId: org, type: 7 as DatasetType }))).toBe('InvalidArgument');
  const names = (await datasets.listDatasetsByOrganizationID({ organizationId: org })).datasets.map((d) => d.name);
  expect(names).not.toContain('odd');
});

test('a training job on a sequence dataset is accepted, then fails as it starts; on a binary one it trains', async () => {
  const sequences = await datasets.createDataset({ name: 'train-runs', organizationId: org, type: DatasetType.SEQUENCE_DATA });
  const submit = (datasetId: string, modelName: string) =>
    ml.submitTrainingJob({
      organizationId: org,
      datasetId,
      modelName,
      modelVersion: '1',
      modelType: ModelType.OBJECT_DETECTION,
      tags: ['a'],
    });
  const { id } = await submit(sequences.id, 'on-sequences');
  expect((await ml.getTrainingJob({ id })).metadata?.status).toBe(TrainingStatus.PENDING);
  const step = await controls.advanceTrainingJob({ id, toEnd: true });
  expect(step.status).toBe(TrainingStatus.FAILED);
  const failed = (await ml.getTrainingJob({ id })).metadata;
  expect(failed?.errorStatus).toMatchObject({ code: 3, message: expect.stringContaining('holds sequences') });
  const binary = await submit(fx.emulator.credentials.datasetId, 'on-images');
  expect((await controls.advanceTrainingJob({ id: binary.id, toEnd: true })).status).toBe(TrainingStatus.COMPLETED);
});
