/**
 * Time moves by itself: training jobs go PENDING -> IN_PROGRESS -> COMPLETED over the
 * training duration, cancels finish, and a completed job's model is an ML model registry
 * item, all seen through the official SDK. A frozen clock moves only when stepped.
 */
import * as fs from 'node:fs';
import { Code } from '@connectrpc/connect';
import { EmulatorService } from '../../src/api/emulator-control';
import { loadSdk, type Sdk } from '../../src/api/sdk';
import { loadServices } from '../../src/api/services';
import { ModelType, TrainingStatus } from '../../src/domain';
import { startEmulator, TRAINING_DURATION_ENV } from '../../src/emulator';
import { useEmulator } from './fixture';
import { clientOf, codeOf, tempDir, waitUntil } from './helpers';

type ViamClient = Awaited<ReturnType<Sdk['createViamClient']>>;

/** `viam.app.packages.v1.PackageType.ML_MODEL` (the SDK does not export the packages enum). */
const ML_MODEL = 2;

let sdk: Sdk;
beforeAll(async () => {
  sdk = await loadSdk();
});

const ms = (t: { toDate(): Date } | undefined): number => t?.toDate().getTime() ?? NaN;

describe('a running clock (training takes 400 ms)', () => {
  const fx = useEmulator({ clock: 'running', trainingDurationMs: 400 });
  let viam: ViamClient;
  beforeAll(async () => {
    const c = fx.emulator.credentials;
    viam = await sdk.createViamClient({
      serviceHost: fx.emulator.url,
      credentials: { type: 'api-key', authEntity: c.apiKeyId, payload: c.apiKey },
    });
  });

  const submit = (modelName: string, modelVersion: string) =>
    viam.mlTrainingClient.submitTrainingJob(
      fx.emulator.credentials.organizationId,
      fx.emulator.credentials.datasetId,
      modelName,
      modelVersion,
      sdk.mlTrainingApi.ModelType.OBJECT_DETECTION,
      ['box'],
    );
  const job = async (id: string) => {
    const j = await viam.mlTrainingClient.getTrainingJob(id);
    if (!j) throw new Error(`no job ${id}`);
    return j;
  };

  test('a job completes by itself, on time, and its model version is an ML model in the registry', async () => {
    const id = await submit('sorter', '1');
    const done = await waitUntil(
      'job COMPLETED',
      () => job(id),
      (j) => j.status === sdk.mlTrainingApi.TrainingStatus.COMPLETED,
    );
    const created = ms(done.createdOn);
    // PENDING for a tenth of the duration, then training for the rest.
    expect(ms(done.trainingStarted) - created).toBe(40);
    expect(ms(done.trainingEnded) - created).toBe(400);
    expect(ms(done.lastModified)).toBe(ms(done.trainingEnded));
    expect(done.syncedModelId).not.toBe('');
    const services = await loadServices();
    const ml = await clientOf(fx.emulator, services.mlTraining);
    const logs = (await ml.getTrainingJobLogs({ id })).logs.map((l) => l.message);
    expect(logs).toEqual([
      'training job submitted for model sorter version 1',
      `training started on dataset ${fx.emulator.credentials.datasetId}`,
      'training completed: model sorter version 1 is ready',
    ]);

    const org = fx.emulator.credentials.organizationId;
    const item = await viam.appClient.getRegistryItem(`${org}:sorter`);
    expect(item).toMatchObject({ organizationId: org, name: 'sorter', type: ML_MODEL, visibility: sdk.appApi.Visibility.PRIVATE });
    expect(item?.metadata.case).toBe('mlModelMetadata');
    expect(item?.metadata.value).toMatchObject({ versions: ['1'], modelType: ModelType.OBJECT_DETECTION });

    // A second version joins the same item; the first stays after its job is deleted.
    const second = await submit('sorter', '2');
    await waitUntil(
      'second job COMPLETED',
      () => job(second),
      (j) => j.status === sdk.mlTrainingApi.TrainingStatus.COMPLETED,
    );
    await viam.mlTrainingClient.deleteCompletedTrainingJob(id);
    const both = await viam.appClient.getRegistryItem(item?.itemId ?? '');
    expect(both?.metadata.value).toMatchObject({ versions: ['1', '2'] });
  });

  test('the registry reads a model as complete once its job is due, without anything else reading the job', async () => {
    const controls = await clientOf(fx.emulator, EmulatorService);
    await submit('unwatched', '1');
    const org = fx.emulator.credentials.organizationId;
    const item = await waitUntil(
      'model in the registry',
      () => viam.appClient.getRegistryItem(`${org}:unwatched`).catch(() => undefined),
      (i) => i !== undefined,
    );
    expect(item?.metadata.value).toMatchObject({ versions: ['1'] });
    expect((await controls.getClock({})).frozen).toBe(false);
  });

  test('trained models are listed among the registry items, with the modules and scripts', async () => {
    const id = await submit('listed', '1');
    await waitUntil(
      'job COMPLETED',
      () => job(id),
      (j) => j.status === sdk.mlTrainingApi.TrainingStatus.COMPLETED,
    );
    const org = fx.emulator.credentials.organizationId;
    const models = await viam.appClient.listRegistryItems(org, [ML_MODEL], [], [], []);
    expect(models.every((i) => i.type === ML_MODEL)).toBe(true);
    expect(models.find((i) => i.name === 'listed')).toMatchObject({
      itemId: 'acme:listed',
      organizationId: org,
      metadata: { case: 'mlModelMetadata' },
    });
    const everything = (await viam.appClient.listRegistryItems(org, [], [], [], [])).map((i) => i.itemId);
    expect(everything).toEqual(expect.arrayContaining(['acme:sensors', 'acme:trainer', 'acme:listed']));
    expect(everything).toEqual([...everything].sort());
    const searched = (await viam.appClient.listRegistryItems(org, [], [], [], [], 'LISTED')).map((i) => i.itemId);
    expect(searched).toEqual(['acme:listed']);
    // Only published items exist.
    expect(await viam.appClient.listRegistryItems(org, [], [], [], [sdk.appApi.RegistryItemStatus.IN_DEVELOPMENT])).toEqual([]);
  });

  test('a cancel finishes by itself', async () => {
    const id = await submit('canceled', '1');
    await viam.mlTrainingClient.cancelTrainingJob(id);
    const canceled = await waitUntil(
      'job CANCELED',
      () => job(id),
      (j) => j.status === sdk.mlTrainingApi.TrainingStatus.CANCELED,
    );
    expect(ms(canceled.trainingEnded)).toBeGreaterThan(ms(canceled.createdOn));
    // A canceled job trains no model.
    await expect(viam.appClient.getRegistryItem(`${fx.emulator.credentials.organizationId}:canceled`)).rejects.toMatchObject({
      code: Code.NotFound,
    });
  });

  test('an item no job trained is not found', async () => {
    await expect(viam.appClient.getRegistryItem(`${fx.emulator.credentials.organizationId}:never-trained`)).rejects.toMatchObject({
      code: Code.NotFound,
    });
  });
});

describe('a frozen clock (training takes 1 s)', () => {
  const fx = useEmulator({ clock: 'frozen', trainingDurationMs: 1000 });

  test('jobs move only as the clock is stepped, each phase on time', async () => {
    const services = await loadServices();
    const ml = await clientOf(fx.emulator, services.mlTraining);
    const controls = await clientOf(fx.emulator, EmulatorService);
    const { organizationId, datasetId } = fx.emulator.credentials;
    const { id } = await ml.submitTrainingJob({
      organizationId,
      datasetId,
      modelName: 'stepped',
      modelVersion: '1',
      modelType: ModelType.OBJECT_DETECTION,
      tags: ['box'],
    });
    const status = async () => (await ml.getTrainingJob({ id })).metadata?.status;
    const clock = await controls.getClock({});
    expect(clock.frozen).toBe(true);
    expect(clock.trainingDurationMs).toBe(1000n);

    await controls.stepClock({ milliseconds: 99n });
    expect(await status()).toBe(TrainingStatus.PENDING);
    await controls.stepClock({ milliseconds: 1n });
    expect(await status()).toBe(TrainingStatus.IN_PROGRESS);
    await controls.stepClock({ milliseconds: 899n });
    expect(await status()).toBe(TrainingStatus.IN_PROGRESS);
    const stepped = await controls.stepClock({ milliseconds: 1n });
    const m = (await ml.getTrainingJob({ id })).metadata;
    expect(m?.status).toBe(TrainingStatus.COMPLETED);
    expect(ms(m?.trainingEnded)).toBe(ms(stepped.now));
    expect(ms(m?.trainingEnded) - ms(m?.createdOn)).toBe(1000);

    // A cancel takes a tenth of the duration.
    const { id: other } = await ml.submitTrainingJob({
      organizationId,
      datasetId,
      modelName: 'stepped',
      modelVersion: '2',
      modelType: ModelType.OBJECT_DETECTION,
      tags: ['box'],
    });
    await ml.cancelTrainingJob({ id: other });
    await controls.stepClock({ milliseconds: 99n });
    expect((await ml.getTrainingJob({ id: other })).metadata?.status).toBe(TrainingStatus.CANCELING);
    await controls.stepClock({ milliseconds: 1n });
    expect((await ml.getTrainingJob({ id: other })).metadata?.status).toBe(TrainingStatus.CANCELED);

    // The controls still step a job by hand while the clock is frozen; its next phase counts from the step.
    const { id: third } = await ml.submitTrainingJob({
      organizationId,
      datasetId,
      modelName: 'stepped',
      modelVersion: '3',
      modelType: ModelType.OBJECT_DETECTION,
      tags: ['box'],
    });
    expect((await controls.advanceTrainingJob({ id: third })).status).toBe(TrainingStatus.IN_PROGRESS);
    await controls.stepClock({ milliseconds: 899n });
    expect((await ml.getTrainingJob({ id: third })).metadata?.status).toBe(TrainingStatus.IN_PROGRESS);
    await controls.stepClock({ milliseconds: 1n });
    expect((await ml.getTrainingJob({ id: third })).metadata?.status).toBe(TrainingStatus.COMPLETED);

    expect(await codeOf(controls.stepClock({ milliseconds: -1n }))).toBe('InvalidArgument');
    // Frozen means frozen: the clock reads the same instant until stepped.
    expect(ms((await controls.getClock({})).now)).toBe(ms(stepped.now) + 100 + 900);
  });
});

test('the clock state stays with the data folder; resuming runs it from where it stood', async () => {
  const dataDir = tempDir();
  try {
    const first = await startEmulator({ dataDir, port: 0, clock: 'frozen' });
    const controls = await clientOf(first, EmulatorService);
    const before = await controls.stepClock({ milliseconds: 60_000n });
    await first.close();
    const second = await startEmulator({ dataDir, port: 0 });
    try {
      const controls2 = await clientOf(second, EmulatorService);
      const after = await controls2.getClock({});
      expect(after.frozen).toBe(true);
      expect(ms(after.now)).toBe(ms(before.now));
      const resumed = await controls2.resumeClock({});
      expect(resumed.frozen).toBe(false);
      expect(ms(resumed.now)).toBeGreaterThanOrEqual(ms(before.now));
      // One minute ahead of the wall clock, and running.
      expect(ms(resumed.now) - Date.now()).toBeGreaterThan(50_000);
    } finally {
      await second.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test(`${TRAINING_DURATION_ENV} that is not a duration is refused naming the variable`, async () => {
  const dataDir = tempDir();
  const saved = process.env[TRAINING_DURATION_ENV];
  process.env[TRAINING_DURATION_ENV] = 'soon';
  try {
    await expect(startEmulator({ dataDir, port: 0 })).rejects.toThrow(/must be a duration like 300ms/);
    await expect(startEmulator({ dataDir, port: 0 })).rejects.toMatchObject({ path: TRAINING_DURATION_ENV });
  } finally {
    if (saved === undefined) delete process.env[TRAINING_DURATION_ENV];
    else process.env[TRAINING_DURATION_ENV] = saved;
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
