/** The training schedule as pure functions: phase lengths, due transitions and their instants. */
import { TrainingStatus } from '../../src/domain';
import { dueTransitions, phaseMs, shortestPhaseMs } from '../../src/emulator/logic/training-schedule';
import type { TrainingJobRecord } from '../../src/emulator/store/jobs';

const T0 = 1_000_000;
const job = (status: TrainingStatus, lastModified = T0): TrainingJobRecord => ({
  id: 'j',
  organizationId: 'o',
  datasetId: 'd',
  modelName: 'm',
  modelVersion: '1',
  modelType: 3,
  modelFramework: 1,
  isCustomJob: false,
  registryItemId: '',
  registryItemVersion: '',
  status,
  createdOn: T0,
  lastModified,
  syncedModelId: '',
  tags: [],
  arguments: {},
  containerVersion: 'default',
});
let ids = 0;
const newId = () => `model-${++ids}`;

test('PENDING takes a tenth of the duration, IN_PROGRESS the rest, CANCELING a tenth; terminal statuses stay', () => {
  expect(phaseMs(TrainingStatus.PENDING, 60_000)).toBe(6_000);
  expect(phaseMs(TrainingStatus.IN_PROGRESS, 60_000)).toBe(54_000);
  expect(phaseMs(TrainingStatus.CANCELING, 60_000)).toBe(6_000);
  for (const s of [TrainingStatus.COMPLETED, TrainingStatus.FAILED, TrainingStatus.CANCELED]) expect(phaseMs(s, 60_000)).toBeUndefined();
  expect(shortestPhaseMs(60_000)).toBe(6_000);
  expect(shortestPhaseMs(5)).toBe(0);
});

test('every transition due by now, each at the instant its phase ended', () => {
  expect(dueTransitions(job(TrainingStatus.PENDING), 1000, T0 + 99, newId)).toEqual([]);
  const one = dueTransitions(job(TrainingStatus.PENDING), 1000, T0 + 100, newId);
  expect(one.map((t) => [t.job.status, t.job.lastModified])).toEqual([[TrainingStatus.IN_PROGRESS, T0 + 100]]);
  expect(one[0]?.job.trainingStarted).toBe(T0 + 100);
  const both = dueTransitions(job(TrainingStatus.PENDING), 1000, T0 + 5000, newId);
  expect(both.map((t) => [t.job.status, t.job.lastModified])).toEqual([
    [TrainingStatus.IN_PROGRESS, T0 + 100],
    [TrainingStatus.COMPLETED, T0 + 1000],
  ]);
  expect(both[1]?.job.trainingEnded).toBe(T0 + 1000);
  expect(both[1]?.job.syncedModelId).toMatch(/^model-/);
  const canceled = dueTransitions(job(TrainingStatus.CANCELING, T0 + 300), 1000, T0 + 400, newId);
  expect(canceled.map((t) => t.job.status)).toEqual([TrainingStatus.CANCELED]);
  expect(dueTransitions(job(TrainingStatus.COMPLETED), 1000, T0 + 1e9, newId)).toEqual([]);
});

test('a zero duration completes a job at its submission', () => {
  const t = dueTransitions(job(TrainingStatus.PENDING), 0, T0, newId);
  expect(t.map((x) => [x.job.status, x.job.lastModified])).toEqual([
    [TrainingStatus.IN_PROGRESS, T0],
    [TrainingStatus.COMPLETED, T0],
  ]);
});

test('a job on a sequence dataset fails when its pending phase ends; the dataset type of binary data trains', () => {
  const failed = dueTransitions(job(TrainingStatus.PENDING), 1000, T0 + 5000, newId, 1);
  expect(failed.map((t) => [t.job.status, t.job.lastModified])).toEqual([[TrainingStatus.FAILED, T0 + 100]]);
  expect(failed[0]?.job.error).toEqual({ code: 3, message: 'dataset d holds sequences; training reads binary data' });
  expect(dueTransitions(job(TrainingStatus.PENDING), 1000, T0 + 5000, newId, 0).map((t) => t.job.status)).toEqual([
    TrainingStatus.IN_PROGRESS,
    TrainingStatus.COMPLETED,
  ]);
});
