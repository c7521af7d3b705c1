/**
 * Conformance: the official SDK, unchanged, against the emulator, in its default gRPC-web
 * mode and in its documented Node mode (gRPC over HTTP/2 through GRPC_TRANSPORT_FACTORY).
 */
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import { EmulatorService } from '../../src/api/emulator-control';
import { loadSdk, type Sdk } from '../../src/api/sdk';
import { loadServices } from '../../src/api/services';
import { useEmulator } from './fixture';
import { clientOf } from './helpers';

type Mode = 'grpc-web' | 'grpc';
type ViamClient = Awaited<ReturnType<Sdk['createViamClient']>>;

// Jobs stay PENDING until a test advances them.
const fx = useEmulator({ clock: 'frozen' });
let sdk: Sdk;
beforeAll(async () => {
  sdk = await loadSdk();
});

async function statusOf(p: Promise<unknown>): Promise<{ code: number; message: string } | 'ok'> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    if (err instanceof sdk.ConnectError) return { code: err.code, message: err.rawMessage };
    throw err;
  }
}

describe.each<Mode>(['grpc-web', 'grpc'])('official SDK in %s mode', (mode) => {
  let factoryCalls = 0;
  let viam: ViamClient;
  const connect = (credentials: Parameters<Sdk['createViamClient']>[0]['credentials']) =>
    sdk.createViamClient({ serviceHost: fx.emulator.url, credentials });
  const ownerCredentials = () =>
    ({ type: 'api-key', authEntity: fx.emulator.credentials.apiKeyId, payload: fx.emulator.credentials.apiKey }) as const;

  beforeAll(async () => {
    if (mode === 'grpc') {
      globalThis.VIAM = {
        GRPC_TRANSPORT_FACTORY: (opts: unknown) => {
          factoryCalls += 1;
          return createGrpcTransport({ httpVersion: '2', ...(opts as { baseUrl: string }) });
        },
      };
    }
    viam = await connect(ownerCredentials());
  });
  afterAll(() => {
    delete globalThis.VIAM;
  });

  test('the mode is in effect', () => {
    if (mode === 'grpc') expect(factoryCalls).toBeGreaterThan(0);
    else expect(factoryCalls).toBe(0);
  });

  test('every mlTrainingClient method', async () => {
    const { organizationId, datasetId } = fx.emulator.credentials;
    const ml = viam.mlTrainingClient;
    const controls = await clientOf(fx.emulator, EmulatorService);

    const jobId = await ml.submitTrainingJob(organizationId, datasetId, `boxes-${mode}`, '1', sdk.ModelType.OBJECT_DETECTION, [
      'box',
      'crate',
    ]);
    const customId = await ml.submitCustomTrainingJob(organizationId, datasetId, 'acme:trainer', '0.3.0', `custom-${mode}`, '1');
    expect(jobId).not.toBe(customId);

    const job = await ml.getTrainingJob(jobId);
    expect(job).toMatchObject({
      id: jobId,
      datasetId,
      organizationId,
      modelName: `boxes-${mode}`,
      modelVersion: '1',
      modelType: sdk.ModelType.OBJECT_DETECTION,
      isCustomJob: false,
      status: sdk.TrainingStatus.PENDING,
      tags: ['box', 'crate'],
    });
    expect(job?.createdOn?.toDate()).toBeInstanceOf(Date);
    expect(job?.lastModified?.toDate()).toBeInstanceOf(Date);

    const custom = await ml.getTrainingJob(customId);
    expect(custom).toMatchObject({ isCustomJob: true, registryItemId: 'acme:trainer', registryItemVersion: '0.3.0' });

    const all = await ml.listTrainingJobs(organizationId, sdk.TrainingStatus.UNSPECIFIED);
    expect(all.map((j) => j.id)).toEqual(expect.arrayContaining([jobId, customId]));
    await controls.advanceTrainingJob({ id: jobId });
    const running = await ml.listTrainingJobs(organizationId, sdk.TrainingStatus.IN_PROGRESS);
    expect(running.map((j) => j.id)).toEqual([jobId]);
    const pending = await ml.listTrainingJobs(organizationId, sdk.TrainingStatus.PENDING);
    expect(pending.map((j) => j.id)).toContain(customId);
    expect(pending.map((j) => j.id)).not.toContain(jobId);

    expect(await ml.cancelTrainingJob(customId)).toBeNull();
    expect((await ml.getTrainingJob(customId))?.status).toBe(sdk.TrainingStatus.CANCELING);
    expect(await statusOf(ml.deleteCompletedTrainingJob(customId))).toMatchObject({ code: sdk.Code.FailedPrecondition });
    await controls.advanceTrainingJob({ id: customId });
    expect((await ml.getTrainingJob(customId))?.status).toBe(sdk.TrainingStatus.CANCELED);
    expect(await ml.deleteCompletedTrainingJob(customId)).toBeNull();
    expect(await statusOf(ml.getTrainingJob(customId))).toMatchObject({ code: sdk.Code.NotFound });

    await controls.advanceTrainingJob({ id: jobId });
    const done = await ml.getTrainingJob(jobId);
    expect(done?.status).toBe(sdk.TrainingStatus.COMPLETED);
    expect(done?.syncedModelId).not.toBe('');
    expect(await ml.deleteCompletedTrainingJob(jobId)).toBeNull();
  });

  test('appClient reads and updates a part config', async () => {
    const app = viam.appClient;
    const robotId = await app.newRobot(fx.emulator.credentials.locationId, `rover-${mode}`);
    const [main] = await app.getRobotParts(robotId);
    expect(main?.mainPart).toBe(true);
    const partId = main?.id ?? '';
    const config = {
      components: [{ name: 'board1', api: 'rdk:component:board', model: 'acme:sensors:pi-board', attributes: { pins: ['7'] } }],
      modules: [{ type: 'registry', name: 'acme_sensors', module_id: 'acme:sensors', version: '~1.2' }],
    };
    const updated = await app.updateRobotPart(partId, main?.name ?? '', sdk.Struct.fromJson(config));
    expect(updated?.robotConfig?.toJson()).toEqual(config);

    const got = await app.getRobotPart(partId);
    expect(got.part?.robotConfig?.toJson()).toEqual(config);
    expect(JSON.parse(got.configJson)).toEqual(config);
    expect(got.part?.lastUpdated?.toDate().getTime()).toBe(updated?.lastUpdated?.toDate().getTime());

    const bad = await statusOf(
      app.updateRobotPart(partId, main?.name ?? '', sdk.Struct.fromJson({ network: { bind_address: 'nowhere' } })),
    );
    expect(bad).toMatchObject({ code: sdk.Code.InvalidArgument, message: expect.stringContaining('network.bind_address') });
  });

  test('a wrong key is refused with PermissionDenied', async () => {
    const res = await statusOf(connect({ type: 'api-key', authEntity: fx.emulator.credentials.apiKeyId, payload: 'wrong-key' }));
    expect(res).toMatchObject({ code: sdk.Code.PermissionDenied, message: expect.stringMatching(/^failed to authenticate: /) });
  });

  test('an unknown access token is refused with Unauthenticated', async () => {
    const client = await connect({ type: 'access-token', payload: 'not-a-token' });
    const res = await statusOf(client.mlTrainingClient.listTrainingJobs(fx.emulator.credentials.organizationId, 0));
    expect(res).toMatchObject({ code: sdk.Code.Unauthenticated });
  });

  test('a call without a token is refused with Unauthenticated "authentication required"', async () => {
    const { mlTraining } = await loadServices();
    const transport =
      mode === 'grpc'
        ? createGrpcTransport({ baseUrl: fx.emulator.url, httpVersion: '2' })
        : createGrpcWebTransport({ baseUrl: fx.emulator.url, httpVersion: '1.1' });
    const raw = createClient(mlTraining, transport);
    const res = await statusOf(raw.listTrainingJobs({ organizationId: fx.emulator.credentials.organizationId }));
    expect(res).toMatchObject({ code: sdk.Code.Unauthenticated, message: 'authentication required' });
  });

  test('a machine-scoped key calling the training service gets PermissionDenied', async () => {
    const { organizationId, datasetId } = fx.emulator.credentials;
    const robotId = await viam.appClient.newRobot(fx.emulator.credentials.locationId, `scoped-${mode}`);
    const key = await viam.appClient.createKey([
      new sdk.appApi.Authorization({
        authorizationType: 'role',
        authorizationId: 'robot_owner',
        resourceType: 'robot',
        resourceId: robotId,
        organizationId,
      }),
    ]);
    const scoped = await connect({ type: 'api-key', authEntity: key.id, payload: key.key });
    const ml = scoped.mlTrainingClient;
    expect(await statusOf(ml.listTrainingJobs(organizationId, 0))).toMatchObject({ code: sdk.Code.PermissionDenied });
    expect(await statusOf(ml.submitTrainingJob(organizationId, datasetId, 'm', '1', sdk.ModelType.OBJECT_DETECTION, ['a']))).toMatchObject({
      code: sdk.Code.PermissionDenied,
    });
    // The same key may read its own machine.
    expect((await scoped.appClient.getRobot(robotId))?.id).toBe(robotId);
  });
});
