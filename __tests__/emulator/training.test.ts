/** ML training jobs: submission rules, lifecycle driven by the controls, cancel/delete rules, logs. */
import type { Client } from '@connectrpc/connect';
import { EmulatorService, type EmulatorServiceType } from '../../src/api/emulator-control';
import { DatasetService, loadServices, type MLTrainingServiceType } from '../../src/api/services';
import { ModelFramework, ModelType, TrainingStatus } from '../../src/domain';
import { useEmulator } from './fixture';
import { clientOf, codeOf } from './helpers';

// Jobs move only when a test advances them.
const fx = useEmulator({ clock: 'frozen' });
let ml: Client<MLTrainingServiceType>;
let controls: Client<EmulatorServiceType>;
let org: string;
let dataset: string;
let seq = 0;
beforeAll(async () => {
  const services = await loadServices();
  ml = await clientOf(fx.emulator, services.mlTraining);
  controls = await clientOf(fx.emulator, EmulatorService);
  org = fx.emulator.credentials.organizationId;
  dataset = fx.emulator.credentials.datasetId;
});

/** A fresh model name per call, so version uniqueness never collides between tests. */
const model = () => `model-${++seq}`;

async function submit(modelName = model(), modelVersion = '1'): Promise<string> {
  const { id } = await ml.submitTrainingJob({
    organizationId: org,
    datasetId: dataset,
    modelName,
    modelVersion,
    modelType: ModelType.OBJECT_DETECTION,
    tags: ['box'],
  });
  return id;
}

async function statusOf(id: string): Promise<number> {
  return (await ml.getTrainingJob({ id })).metadata?.status ?? -1;
}

describe('submit', () => {
  test('a built-in job starts PENDING with every field that applies filled', async () => {
    const name = model();
    const before = Date.now();
    const id = await submit(name, '2024-01');
    const m = (await ml.getTrainingJob({ id })).metadata;
    expect(m).toMatchObject({
      id,
      datasetId: dataset,
      organizationId: org,
      modelName: name,
      modelVersion: '2024-01',
      modelType: ModelType.OBJECT_DETECTION,
      modelFramework: ModelFramework.TFLITE,
      isCustomJob: false,
      registryItemId: '',
      registryItemVersion: '',
      status: TrainingStatus.PENDING,
      syncedModelId: '',
      tags: ['box'],
      arguments: {},
      containerVersion: 'default',
    });
    expect(m?.errorStatus).toBeUndefined();
    expect(m?.trainingStarted).toBeUndefined();
    expect(m?.trainingEnded).toBeUndefined();
    expect(m?.createdOn?.toDate().getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(m?.lastModified?.toDate().getTime()).toBe(m?.createdOn?.toDate().getTime());
  });

  test('a custom job records the script, its version, arguments, container and the script model type', async () => {
    const { id } = await ml.submitCustomTrainingJob({
      organizationId: org,
      datasetId: dataset,
      registryItemId: 'acme:trainer',
      registryItemVersion: '0.2.0',
      modelName: model(),
      modelVersion: '1',
      arguments: { epochs: '3' },
      containerVersion: 'tf-2.15',
    });
    const m = (await ml.getTrainingJob({ id })).metadata;
    expect(m).toMatchObject({
      isCustomJob: true,
      registryItemId: 'acme:trainer',
      registryItemVersion: '0.2.0',
      arguments: { epochs: '3' },
      containerVersion: 'tf-2.15',
      modelType: ModelType.OBJECT_DETECTION,
      modelFramework: ModelFramework.TFLITE,
      tags: [],
    });
  });

  test('unknown dataset, script or script version is NotFound', async () => {
    const base = { organizationId: org, datasetId: dataset, modelName: model(), modelVersion: '1' };
    expect(await codeOf(ml.submitTrainingJob({ ...base, datasetId: 'nope', modelType: ModelType.OBJECT_DETECTION, tags: ['a'] }))).toBe(
      'NotFound',
    );
    expect(await codeOf(ml.submitCustomTrainingJob({ ...base, registryItemId: 'acme:nope', registryItemVersion: '0.2.0' }))).toBe(
      'NotFound',
    );
    expect(await codeOf(ml.submitCustomTrainingJob({ ...base, registryItemId: 'acme:trainer', registryItemVersion: '9.9.9' }))).toBe(
      'NotFound',
    );
    expect(
      await codeOf(
        ml.submitCustomTrainingJob({ ...base, datasetId: 'nope', registryItemId: 'acme:trainer', registryItemVersion: '0.2.0' }),
      ),
    ).toBe('NotFound');
  });

  test('a module is not a training script (InvalidArgument)', async () => {
    const res = ml.submitCustomTrainingJob({
      organizationId: org,
      datasetId: dataset,
      registryItemId: 'acme:sensors',
      registryItemVersion: '1.2.3',
      modelName: model(),
      modelVersion: '1',
    });
    expect(await codeOf(res)).toBe('InvalidArgument');
  });

  test('a script version published through the controls can be used', async () => {
    await controls.publishTrainingScript({ itemId: 'acme:trainer', version: '0.4.0' });
    const { id } = await ml.submitCustomTrainingJob({
      organizationId: org,
      datasetId: dataset,
      registryItemId: 'acme:trainer',
      registryItemVersion: '0.4.0',
      modelName: model(),
      modelVersion: '1',
    });
    expect(await statusOf(id)).toBe(TrainingStatus.PENDING);
  });

  test('invalid parameters are InvalidArgument naming the field', async () => {
    const res = ml.submitTrainingJob({
      organizationId: org,
      datasetId: dataset,
      modelName: 'bad name!',
      modelVersion: '1',
      modelType: 0,
      tags: [],
    });
    const err = await res.catch((e: Error) => e);
    expect(await codeOf(Promise.reject(err))).toBe('InvalidArgument');
    expect((err as Error).message).toMatch(/model_name/);
    expect((err as Error).message).toMatch(/model_type/);
  });

  test('a model version already used for that model in the organization is AlreadyExists', async () => {
    const name = model();
    await submit(name, '1');
    expect(await codeOf(submit(name, '1'))).toBe('AlreadyExists');
    const custom = ml.submitCustomTrainingJob({
      organizationId: org,
      datasetId: dataset,
      registryItemId: 'acme:trainer',
      registryItemVersion: '0.3.0',
      modelName: name,
      modelVersion: '1',
    });
    expect(await codeOf(custom)).toBe('AlreadyExists');
    // Another version of the model, or the same version of another model, is fine.
    await submit(name, '2');
    await submit(model(), '1');
  });

  test('deleting a failed job frees its model version; a completed job keeps it (its model stays)', async () => {
    const failedName = model();
    const failed = await submit(failedName, '1');
    await controls.failTrainingJob({ id: failed, message: 'out of memory' });
    await ml.deleteCompletedTrainingJob({ id: failed });
    await submit(failedName, '1');

    const doneName = model();
    const done = await submit(doneName, '1');
    await controls.advanceTrainingJob({ id: done, toEnd: true });
    await ml.deleteCompletedTrainingJob({ id: done });
    expect(await codeOf(submit(doneName, '1'))).toBe('AlreadyExists');
  });

  test('the dataset must belong to the organization submitted to', async () => {
    const other = await controls.createOrganization({ name: 'Other Org' });
    const res = ml.submitTrainingJob({
      organizationId: org,
      datasetId: other.datasetId,
      modelName: model(),
      modelVersion: '1',
      modelType: ModelType.OBJECT_DETECTION,
      tags: ['a'],
    });
    expect(await codeOf(res)).toBe('NotFound');
  });
});

describe('lifecycle', () => {
  test('PENDING -> IN_PROGRESS -> COMPLETED only when advanced, with timestamps and a synced model', async () => {
    const id = await submit();
    expect(await statusOf(id)).toBe(TrainingStatus.PENDING);
    const step1 = await controls.advanceTrainingJob({ id });
    expect([step1.previousStatus, step1.status]).toEqual([TrainingStatus.PENDING, TrainingStatus.IN_PROGRESS]);
    const running = (await ml.getTrainingJob({ id })).metadata;
    expect(running?.trainingStarted).toBeDefined();
    expect(running?.trainingEnded).toBeUndefined();
    const step2 = await controls.advanceTrainingJob({ id });
    expect(step2.status).toBe(TrainingStatus.COMPLETED);
    const done = (await ml.getTrainingJob({ id })).metadata;
    expect(done?.trainingEnded).toBeDefined();
    expect(done?.syncedModelId).not.toBe('');
    expect(done?.errorStatus).toBeUndefined();
    expect(done?.lastModified?.toDate().getTime()).toBeGreaterThanOrEqual(done?.createdOn?.toDate().getTime() ?? Infinity);
    expect(await codeOf(controls.advanceTrainingJob({ id }))).toBe('FailedPrecondition');
  });

  test('to_end runs a job to completion in one call', async () => {
    const id = await submit();
    const res = await controls.advanceTrainingJob({ id, toEnd: true });
    expect([res.previousStatus, res.status]).toEqual([TrainingStatus.PENDING, TrainingStatus.COMPLETED]);
  });

  test('a job can be made to fail, with an error status', async () => {
    const id = await submit();
    await controls.advanceTrainingJob({ id });
    await controls.failTrainingJob({ id, message: 'dataset has no labels', code: 9 });
    const m = (await ml.getTrainingJob({ id })).metadata;
    expect(m?.status).toBe(TrainingStatus.FAILED);
    expect(m?.errorStatus).toMatchObject({ code: 9, message: 'dataset has no labels' });
    expect(m?.trainingEnded).toBeDefined();
    expect(await codeOf(controls.failTrainingJob({ id }))).toBe('FailedPrecondition');
    const defaulted = await submit();
    await controls.failTrainingJob({ id: defaulted });
    expect((await ml.getTrainingJob({ id: defaulted })).metadata?.errorStatus).toMatchObject({ code: 13, message: 'training failed' });
  });

  test('listing filters by status; UNSPECIFIED lists every job', async () => {
    const pending = await submit();
    // The clock is frozen: step it so the second job is the newer one.
    await controls.stepClock({ milliseconds: 1n });
    const running = await submit();
    await controls.advanceTrainingJob({ id: running });
    const all = (await ml.listTrainingJobs({ organizationId: org, status: TrainingStatus.UNSPECIFIED })).jobs.map((j) => j.id);
    expect(all).toEqual(expect.arrayContaining([pending, running]));
    const onlyPending = (await ml.listTrainingJobs({ organizationId: org, status: TrainingStatus.PENDING })).jobs;
    expect(onlyPending.map((j) => j.id)).toContain(pending);
    expect(onlyPending.every((j) => j.status === TrainingStatus.PENDING)).toBe(true);
    const onlyRunning = (await ml.listTrainingJobs({ organizationId: org, status: TrainingStatus.IN_PROGRESS })).jobs;
    // Other tests' jobs may be running too: the filter keeps this one and only running ones.
    expect(onlyRunning.map((j) => j.id)).toContain(running);
    expect(onlyRunning.map((j) => j.id)).not.toContain(pending);
    expect(onlyRunning.every((j) => j.status === TrainingStatus.IN_PROGRESS)).toBe(true);
    // Newest first.
    expect(all.indexOf(running)).toBeLessThan(all.indexOf(pending));
    expect(await codeOf(ml.listTrainingJobs({ organizationId: org, status: 42 as TrainingStatus }))).toBe('InvalidArgument');
  });
});

describe('cancel and delete', () => {
  test.each([
    ['PENDING', 0],
    ['IN_PROGRESS', 1],
  ])('a %s job cancels through CANCELING to CANCELED', async (_name, steps) => {
    const id = await submit();
    for (let i = 0; i < steps; i++) await controls.advanceTrainingJob({ id });
    await ml.cancelTrainingJob({ id });
    expect(await statusOf(id)).toBe(TrainingStatus.CANCELING);
    expect(await codeOf(ml.cancelTrainingJob({ id }))).toBe('FailedPrecondition');
    const res = await controls.advanceTrainingJob({ id });
    expect(res.status).toBe(TrainingStatus.CANCELED);
    expect((await ml.getTrainingJob({ id })).metadata?.trainingEnded).toBeDefined();
  });

  test.each([
    ['COMPLETED', async (id: string) => void (await controls.advanceTrainingJob({ id, toEnd: true }))],
    ['FAILED', async (id: string) => void (await controls.failTrainingJob({ id }))],
  ])('a %s job cannot be canceled', async (_name, finish) => {
    const id = await submit();
    await finish(id);
    expect(await codeOf(ml.cancelTrainingJob({ id }))).toBe('FailedPrecondition');
  });

  const reach: Record<string, (id: string) => Promise<void>> = {
    PENDING: async () => {},
    IN_PROGRESS: async (id) => void (await controls.advanceTrainingJob({ id })),
    CANCELING: async (id) => void (await ml.cancelTrainingJob({ id })),
    COMPLETED: async (id) => void (await controls.advanceTrainingJob({ id, toEnd: true })),
    FAILED: async (id) => void (await controls.failTrainingJob({ id })),
    CANCELED: async (id) => {
      await ml.cancelTrainingJob({ id });
      await controls.advanceTrainingJob({ id });
    },
  };

  test.each([
    ['PENDING', 'FailedPrecondition'],
    ['IN_PROGRESS', 'FailedPrecondition'],
    ['CANCELING', 'FailedPrecondition'],
    ['COMPLETED', 'ok'],
    ['FAILED', 'ok'],
    // DECISION: a canceled job has stopped for good, so it counts as completed and is deletable.
    ['CANCELED', 'ok'],
  ])('deleting a %s job: %s', async (status, expected) => {
    const id = await submit();
    await reach[status]?.(id);
    expect((await ml.getTrainingJob({ id })).metadata?.status).toBe(TrainingStatus[status as keyof typeof TrainingStatus]);
    expect(await codeOf(ml.deleteCompletedTrainingJob({ id }))).toBe(expected);
    expect(await codeOf(ml.getTrainingJob({ id }))).toBe(expected === 'ok' ? 'NotFound' : 'ok');
  });

  test('unknown ids are NotFound', async () => {
    expect(await codeOf(ml.getTrainingJob({ id: 'nope' }))).toBe('NotFound');
    expect(await codeOf(ml.cancelTrainingJob({ id: 'nope' }))).toBe('NotFound');
    expect(await codeOf(ml.deleteCompletedTrainingJob({ id: 'nope' }))).toBe('NotFound');
    expect(await codeOf(ml.getTrainingJobLogs({ id: 'nope' }))).toBe('NotFound');
  });
});

describe('logs', () => {
  test('every transition writes a log line, oldest first', async () => {
    const id = await submit();
    await controls.advanceTrainingJob({ id, toEnd: true });
    const { logs, nextPageToken } = await ml.getTrainingJobLogs({ id });
    expect(logs.map((l) => l.message)).toEqual([
      expect.stringContaining('submitted'),
      expect.stringContaining('started'),
      expect.stringContaining('completed'),
    ]);
    expect(logs.every((l) => l.level === 'info' && l.time !== undefined)).toBe(true);
    expect(nextPageToken).toBe('');
  });

  test('a failure is logged at error level; a page token resumes after an entry', async () => {
    const id = await submit();
    await controls.failTrainingJob({ id, message: 'boom' });
    const { logs } = await ml.getTrainingJobLogs({ id, pageToken: '1' });
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ level: 'error', message: 'training failed: boom' });
    expect(await codeOf(ml.getTrainingJobLogs({ id, pageToken: 'garbage' }))).toBe('InvalidArgument');
  });
});

describe('datasets', () => {
  test('create, list, get by id and delete; names unique per organization', async () => {
    const ds = await clientOf(fx.emulator, DatasetService);
    const { id } = await ds.createDataset({ name: 'boxes', organizationId: org });
    expect(await codeOf(ds.createDataset({ name: 'boxes', organizationId: org }))).toBe('AlreadyExists');
    const listed = await ds.listDatasetsByOrganizationID({ organizationId: org });
    expect(listed.datasets.map((d: { name: string }) => d.name)).toEqual(expect.arrayContaining(['default', 'boxes']));
    const byId = await ds.listDatasetsByIDs({ ids: [id, 'nope'] });
    expect(byId.datasets.map((d: { id: string }) => d.id)).toEqual([id]);
    await ds.deleteDataset({ id });
    expect(await codeOf(ds.deleteDataset({ id }))).toBe('NotFound');
  });
});

describe('containers', () => {
  test('ListSupportedContainers maps each key to its container, one of them past its end of life', async () => {
    const { containerMap } = await ml.listSupportedContainers({});
    expect(Object.keys(containerMap).sort()).toEqual(['pytorch:2.4', 'sklearn:1.5', 'tf:2.15', 'tf:2.17']);
    const tf = containerMap['tf:2.15'];
    expect(tf).toMatchObject({ key: 'tf:2.15', framework: 'tensorflow', description: 'Tensorflow 2.15' });
    expect(tf?.uri).toMatch(/^us-docker\.pkg\.dev\//);
    expect(tf?.eol?.toDate().toISOString()).toBe('2026-03-03T00:00:00.000Z');
    expect(containerMap['sklearn:1.5']?.eol).toBeUndefined();
  });

  test('a custom job naming a container the service does not list is stored, and fails when it starts', async () => {
    const custom = (containerVersion: string) =>
      ml.submitCustomTrainingJob({
        organizationId: org,
        datasetId: dataset,
        registryItemId: 'acme:trainer',
        registryItemVersion: '0.2.0',
        modelName: model(),
        modelVersion: '1',
        containerVersion,
      });
    const { id: unlisted } = await custom('tf:1.0');
    const { id: listed } = await custom('tf:2.17');
    await controls.advanceTrainingJob({ id: unlisted });
    await controls.advanceTrainingJob({ id: listed });
    const failed = (await ml.getTrainingJob({ id: unlisted })).metadata;
    expect(failed?.status).toBe(TrainingStatus.FAILED);
    expect(failed?.errorStatus?.message).toContain('"tf:1.0" is not a supported container');
    expect(await statusOf(listed)).toBe(TrainingStatus.IN_PROGRESS);
  });
});
