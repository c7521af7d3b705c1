/**
 * Every method of the service client against a real emulator on 127.0.0.1, over gRPC-web
 * (HTTP/1.1) and gRPC (HTTP/2), including the error paths: unknown ids, a duplicate model
 * version, cancel of a completed job, delete of a running job, a wrong key, a non-owner
 * key, re-authentication and retries (faults injected through the emulator's control
 * service).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Code } from '@connectrpc/connect';
import { createServiceClient, ServiceError, type RetryClock, type ServiceClient, type TransportKind } from '../../src/api/client';
import { EmulatorService } from '../../src/api/emulator-control';
import { loadServices, type Services } from '../../src/api/services';
import { ModelFramework, ModelType, TrainingStatus } from '../../src/domain/training';
import { startEmulator, type RunningEmulator } from '../../src/emulator';

/** The ServiceError a call rejects with (fails the test if it resolves or throws something else). */
async function failure(p: Promise<unknown>): Promise<ServiceError> {
  const outcome = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(outcome).toBeInstanceOf(ServiceError);
  return outcome as ServiceError;
}

/** A retry clock that records waits instead of sleeping. */
function recordingClock(): RetryClock & { waits: number[] } {
  const waits: number[] = [];
  return { waits, sleep: async (ms) => void waits.push(ms), random: () => 0.5 };
}

const PART_CONFIG = {
  components: [
    {
      name: 'range',
      api: 'rdk:component:sensor',
      model: 'acme:sensors:hc-sr04',
      attributes: { trigger_pin: '16', echo_pin: 18, fast: true },
    },
  ],
  modules: [{ type: 'registry', name: 'sensors', module_id: 'acme:sensors', version: '1.2.3' }],
};

describe.each<TransportKind>(['grpc-web', 'grpc'])('service client over %s', (transport) => {
  let services: Services;
  let dataDir: string;
  let emulator: RunningEmulator;
  let clock: RetryClock & { waits: number[] };
  let client: ServiceClient;
  let org: string;
  let datasetId: string;
  let n = 0;
  /** A model name no other test uses. */
  const modelName = (): string => `model-${transport}-${++n}`;

  const control = () => client.clientFor(EmulatorService);
  const advance = (id: string, toEnd = false) => control().advanceTrainingJob({ id, toEnd });
  const injectFault = (method: string, code: Code, count = 1) => control().injectFault({ method, code, message: 'injected', count });

  beforeAll(async () => {
    services = await loadServices();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetform-client-'));
    emulator = await startEmulator({ dataDir, port: 0, clock: 'frozen' });
    clock = recordingClock();
    client = await createServiceClient({
      serviceHost: emulator.url,
      credentials: { type: 'api-key', authEntity: emulator.credentials.apiKeyId, payload: emulator.credentials.apiKey },
      transport,
      clock,
    });
    org = emulator.credentials.organizationId;
    datasetId = emulator.credentials.datasetId;
  });

  afterAll(async () => {
    await client.close();
    await emulator.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    clock.waits.length = 0;
    await control().clearFaults({});
  });

  describe('ML training', () => {
    test('submit, get and list a managed job as plain data', async () => {
      const name = modelName();
      const id = await client.mlTrainingClient.submitTrainingJob(org, datasetId, name, '1', ModelType.OBJECT_DETECTION, ['box', 'lid']);
      expect(id).toMatch(/\S/);
      const job = await client.mlTrainingClient.getTrainingJob(id);
      expect(job).toMatchObject({
        id,
        datasetId,
        organizationId: org,
        modelName: name,
        modelVersion: '1',
        modelType: ModelType.OBJECT_DETECTION,
        modelFramework: ModelFramework.TFLITE,
        isCustomJob: false,
        status: TrainingStatus.PENDING,
        tags: ['box', 'lid'],
      });
      expect(job.createdOn).toBeInstanceOf(Date);
      expect(job.errorStatus).toBeUndefined();
      expect(Object.getPrototypeOf(job)).toBe(Object.prototype);

      const all = await client.mlTrainingClient.listTrainingJobs(org);
      expect(all.map((j) => j.id)).toContain(id);
      const pending = await client.mlTrainingClient.listTrainingJobs(org, TrainingStatus.PENDING);
      expect(pending.map((j) => j.id)).toContain(id);
      expect(pending.every((j) => j.status === TrainingStatus.PENDING)).toBe(true);
      const done = await client.mlTrainingClient.listTrainingJobs(org, TrainingStatus.COMPLETED);
      expect(done.map((j) => j.id)).not.toContain(id);
    });

    test('submit a custom job from the registry, with arguments and container version', async () => {
      const name = modelName();
      const id = await client.mlTrainingClient.submitCustomTrainingJob(org, datasetId, 'acme:trainer', '0.3.0', name, '1', {
        arguments: { epochs: '3' },
        containerVersion: 'tf-2.15',
      });
      const job = await client.mlTrainingClient.getTrainingJob(id);
      expect(job).toMatchObject({
        id,
        isCustomJob: true,
        registryItemId: 'acme:trainer',
        registryItemVersion: '0.3.0',
        modelName: name,
        arguments: { epochs: '3' },
        containerVersion: 'tf-2.15',
      });
      const plain = await client.mlTrainingClient.submitCustomTrainingJob(org, datasetId, 'acme:trainer', '0.2.0', name, '2');
      expect((await client.mlTrainingClient.getTrainingJob(plain)).registryItemVersion).toBe('0.2.0');
    });

    test('a duplicate model version is ALREADY_EXISTS', async () => {
      const name = modelName();
      await client.mlTrainingClient.submitTrainingJob(org, datasetId, name, '7', ModelType.OBJECT_DETECTION, ['box']);
      const err = await failure(client.mlTrainingClient.submitTrainingJob(org, datasetId, name, '7', ModelType.OBJECT_DETECTION, ['box']));
      expect(err).toMatchObject({ code: 'ALREADY_EXISTS', method: 'MLTrainingService.SubmitTrainingJob' });
      expect(err.hint).toMatch(/new model version/);
      const custom = await failure(client.mlTrainingClient.submitCustomTrainingJob(org, datasetId, 'acme:trainer', '0.3.0', name, '7'));
      expect(custom).toMatchObject({ code: 'ALREADY_EXISTS', method: 'MLTrainingService.SubmitCustomTrainingJob' });
    });

    test('cancel a pending job, then delete it once canceled', async () => {
      const id = await client.mlTrainingClient.submitTrainingJob(org, datasetId, modelName(), '1', ModelType.OBJECT_DETECTION, ['box']);
      await client.mlTrainingClient.cancelTrainingJob(id);
      expect((await client.mlTrainingClient.getTrainingJob(id)).status).toBe(TrainingStatus.CANCELING);
      await advance(id, true);
      expect((await client.mlTrainingClient.getTrainingJob(id)).status).toBe(TrainingStatus.CANCELED);
      await client.mlTrainingClient.deleteCompletedTrainingJob(id);
      expect(await failure(client.mlTrainingClient.getTrainingJob(id))).toMatchObject({ code: 'NOT_FOUND' });
    });

    test('cancel of a completed job is FAILED_PRECONDITION; deleting it works', async () => {
      const id = await client.mlTrainingClient.submitTrainingJob(org, datasetId, modelName(), '1', ModelType.OBJECT_DETECTION, ['box']);
      await advance(id, true);
      const job = await client.mlTrainingClient.getTrainingJob(id);
      expect(job.status).toBe(TrainingStatus.COMPLETED);
      expect(job.trainingStarted).toBeInstanceOf(Date);
      expect(job.trainingEnded).toBeInstanceOf(Date);
      const err = await failure(client.mlTrainingClient.cancelTrainingJob(id));
      expect(err).toMatchObject({ code: 'FAILED_PRECONDITION', method: 'MLTrainingService.CancelTrainingJob' });
      expect(err.hint).toMatch(/PENDING or IN_PROGRESS/);
      await client.mlTrainingClient.deleteCompletedTrainingJob(id);
      expect((await client.mlTrainingClient.listTrainingJobs(org)).map((j) => j.id)).not.toContain(id);
    });

    test('delete of a running job is FAILED_PRECONDITION', async () => {
      const id = await client.mlTrainingClient.submitTrainingJob(org, datasetId, modelName(), '1', ModelType.OBJECT_DETECTION, ['box']);
      await advance(id);
      expect((await client.mlTrainingClient.getTrainingJob(id)).status).toBe(TrainingStatus.IN_PROGRESS);
      const err = await failure(client.mlTrainingClient.deleteCompletedTrainingJob(id));
      expect(err).toMatchObject({ code: 'FAILED_PRECONDITION', method: 'MLTrainingService.DeleteCompletedTrainingJob' });
      expect(err.hint).toMatch(/cancel it first/);
      expect((await client.mlTrainingClient.getTrainingJob(id)).status).toBe(TrainingStatus.IN_PROGRESS);
    });

    test('a failed job carries its error status; its logs come back with times', async () => {
      const id = await client.mlTrainingClient.submitTrainingJob(org, datasetId, modelName(), '1', ModelType.OBJECT_DETECTION, ['box']);
      await control().failTrainingJob({ id, message: 'out of memory', code: Code.ResourceExhausted });
      const job = await client.mlTrainingClient.getTrainingJob(id);
      expect(job.status).toBe(TrainingStatus.FAILED);
      expect(job.errorStatus).toEqual({ code: Code.ResourceExhausted, message: 'out of memory' });
      const logs = await client.mlTrainingClient.getTrainingJobLogs(id);
      expect(logs.length).toBeGreaterThanOrEqual(2);
      expect(logs[0]!.message).toMatch(/submitted/);
      expect(logs.every((l) => l.time instanceof Date && typeof l.level === 'string')).toBe(true);
    });

    test('unknown job ids are NOT_FOUND for get, cancel, delete and logs', async () => {
      for (const call of [
        client.mlTrainingClient.getTrainingJob('no-such-job'),
        client.mlTrainingClient.cancelTrainingJob('no-such-job'),
        client.mlTrainingClient.deleteCompletedTrainingJob('no-such-job'),
        client.mlTrainingClient.getTrainingJobLogs('no-such-job'),
      ]) {
        const err = await failure(call);
        expect(err.code).toBe('NOT_FOUND');
        expect(err.hint).toMatch(/check the id/);
      }
      expect(clock.waits).toEqual([]); // NOT_FOUND is never retried
    });
  });

  describe('machines and parts', () => {
    test('organizations and locations', async () => {
      const orgs = await client.appClient.listOrganizations();
      expect(orgs).toContainEqual({ id: org, name: 'Acme Robotics' });
      const locations = await client.appClient.listLocations(org);
      expect(locations.map((l) => l.id)).toContain(emulator.credentials.locationId);
    });

    test('create, read, configure and delete a machine', async () => {
      const loc = emulator.credentials.locationId;
      const id = await client.appClient.newMachine(`picker-${transport}`, loc);
      const machine = await client.appClient.getMachine(id);
      expect(machine).toMatchObject({ id, name: `picker-${transport}`, locationId: loc });
      expect(machine.createdOn).toBeInstanceOf(Date);
      expect((await client.appClient.listMachines(loc)).map((m) => m.id)).toContain(id);

      const parts = await client.appClient.getMachineParts(id);
      expect(parts).toHaveLength(1);
      const main = parts[0]!;
      expect(main).toMatchObject({ machineId: id, locationId: loc, mainPart: true });
      const read = await client.appClient.getMachinePart(main.id);
      expect(read).toMatchObject({ id: main.id, name: main.name, machineId: id, mainPart: true });
      expect(read.lastUpdated).toBeInstanceOf(Date);

      const written = await client.appClient.updateMachinePart(main.id, main.name, PART_CONFIG, read.lastUpdated);
      expect(written.config).toEqual(PART_CONFIG);
      expect(written.lastUpdated).toBeInstanceOf(Date);
      const again = await client.appClient.getMachinePart(main.id);
      expect(again.config).toEqual(PART_CONFIG);
      expect(again.lastUpdated!.getTime()).toBe(written.lastUpdated!.getTime());
      expect((await client.appClient.getMachineParts(id))[0]!.config).toEqual(PART_CONFIG);

      await client.appClient.deleteMachine(id);
      expect(await failure(client.appClient.getMachine(id))).toMatchObject({ code: 'NOT_FOUND', method: 'AppService.GetRobot' });
      expect((await client.appClient.listMachines(loc)).map((m) => m.id)).not.toContain(id);
    });

    test('an update guarded by a stale last_known_update is refused; unguarded it overwrites', async () => {
      const id = await client.appClient.newMachine(`guarded-${transport}`, emulator.credentials.locationId);
      const [part] = await client.appClient.getMachineParts(id);
      const first = await client.appClient.updateMachinePart(part!.id, part!.name, { components: [] });
      const stale = new Date(first.lastUpdated!.getTime() - 1);
      const err = await failure(client.appClient.updateMachinePart(part!.id, part!.name, PART_CONFIG, stale));
      expect(err).toMatchObject({ code: 'FAILED_PRECONDITION', method: 'AppService.UpdateRobotPart' });
      expect(err.hint).toMatch(/refresh/);
      expect((await client.appClient.getMachinePart(part!.id)).config).toEqual({ components: [] });
      const fresh = await client.appClient.updateMachinePart(part!.id, part!.name, PART_CONFIG, first.lastUpdated);
      expect(fresh.config).toEqual(PART_CONFIG);
      const overwritten = await client.appClient.updateMachinePart(part!.id, part!.name, { components: [] });
      expect(overwritten.config).toEqual({ components: [] });
      await client.appClient.deleteMachine(id);
    });

    test('a large config reads back the same with gzip-compressed responses and without', async () => {
      const id = await client.appClient.newMachine(`large-${transport}`, emulator.credentials.locationId);
      const [part] = await client.appClient.getMachineParts(id);
      const components = Array.from({ length: 60 }, (_, i) => ({
        ...PART_CONFIG.components[0]!,
        name: `range-${i}`,
        attributes: { pin: i, note: 'x'.repeat(100) },
      }));
      const config = { ...PART_CONFIG, components };
      expect(JSON.stringify(config).length).toBeGreaterThan(8 * 1024);
      await client.appClient.updateMachinePart(part!.id, part!.name, config);
      const credentials = { type: 'api-key', authEntity: emulator.credentials.apiKeyId, payload: emulator.credentials.apiKey } as const;
      for (const compression of ['gzip', 'none'] as const) {
        const other = await createServiceClient({ serviceHost: emulator.url, credentials, transport, compression });
        expect((await other.appClient.getMachinePart(part!.id)).config).toEqual(config);
        await other.close();
      }
      await client.appClient.deleteMachine(id);
    });

    test('unknown machine and part ids are NOT_FOUND', async () => {
      expect((await failure(client.appClient.getMachine('no-such-machine'))).code).toBe('NOT_FOUND');
      expect((await failure(client.appClient.getMachineParts('no-such-machine'))).code).toBe('NOT_FOUND');
      expect((await failure(client.appClient.getMachinePart('no-such-part'))).code).toBe('NOT_FOUND');
      expect((await failure(client.appClient.updateMachinePart('no-such-part', 'main', {}))).code).toBe('NOT_FOUND');
      expect((await failure(client.appClient.deleteMachine('no-such-machine'))).code).toBe('NOT_FOUND');
    });
  });

  describe('registry', () => {
    test('module versions ascending with their models', async () => {
      const mod = await client.appClient.getModule('acme:sensors');
      expect(mod.moduleId).toBe('acme:sensors');
      expect(mod.organizationId).toBe(org);
      expect(mod.versions.map((v) => v.version)).toEqual(['1.1.0', '1.2.0', '1.2.3', '1.2.4', '1.2.5', '1.3.0', '2.0.0-rc.1']);
      expect(mod.versions[0]!.models).toContainEqual({ api: 'rdk:component:sensor', model: 'acme:sensors:hc-sr04' });
    });

    test('registry items: training script and module versions', async () => {
      expect(await client.appClient.getRegistryItem('acme:trainer')).toMatchObject({
        itemId: 'acme:trainer',
        type: 'ml_training',
        versions: ['0.2.0', '0.3.0'],
      });
      expect(await client.appClient.getRegistryItem('acme:vision')).toMatchObject({
        type: 'module',
        versions: ['0.9.0', '1.0.0', '1.0.1'],
      });
      expect((await failure(client.appClient.getRegistryItem('acme:nothing'))).code).toBe('NOT_FOUND');
      expect((await failure(client.appClient.getModule('acme:nothing'))).code).toBe('NOT_FOUND');
    });
  });

  describe('datasets', () => {
    test('create, list, get and delete', async () => {
      const id = await client.datasetClient.createDataset(`ds-${transport}`, org);
      expect((await client.datasetClient.listDatasets(org)).map((d) => d.id)).toEqual(expect.arrayContaining([id, datasetId]));
      const ds = await client.datasetClient.getDataset(id);
      expect(ds).toMatchObject({ id, name: `ds-${transport}`, organizationId: org });
      expect(ds!.createdOn).toBeInstanceOf(Date);
      await client.datasetClient.deleteDataset(id);
      expect(await client.datasetClient.getDataset(id)).toBeUndefined();
      expect(await client.datasetClient.getDataset('no-such-dataset')).toBeUndefined();
      expect((await failure(client.datasetClient.deleteDataset(id))).code).toBe('NOT_FOUND');
    });
  });

  describe('authentication', () => {
    test('a wrong key or key id is PERMISSION_DENIED at Authenticate, without the key in the error', async () => {
      const wrong = 'definitely-not-the-key-42';
      for (const credentials of [
        { type: 'api-key', authEntity: emulator.credentials.apiKeyId, payload: wrong },
        { type: 'api-key', authEntity: 'no-such-key-id', payload: emulator.credentials.apiKey },
      ] as const) {
        const err = await failure(createServiceClient({ serviceHost: emulator.url, credentials, transport }));
        expect(err).toMatchObject({ code: 'PERMISSION_DENIED', method: 'AuthService.Authenticate' });
        expect(err.hint).toMatch(/FLEETFORM_API_KEY and FLEETFORM_API_KEY_ID/);
        expect(`${err.format()} ${err.stack}`).not.toContain(credentials.payload);
      }
    });

    test('a key without organization owner permission cannot use ML training', async () => {
      const created = await client.clientFor(services.app).createKey({
        name: `operator-${transport}`,
        authorizations: [
          {
            authorizationType: 'role',
            authorizationId: 'organization_operator',
            resourceType: 'organization',
            resourceId: org,
            organizationId: org,
          },
        ],
      });
      const operator = await createServiceClient({
        serviceHost: emulator.url,
        credentials: { type: 'api-key', authEntity: created.id, payload: created.key },
        transport,
      });
      try {
        expect((await operator.appClient.listOrganizations()).map((o) => o.id)).toContain(org);
        const err = await failure(operator.mlTrainingClient.listTrainingJobs(org));
        expect(err).toMatchObject({ code: 'PERMISSION_DENIED', method: 'MLTrainingService.ListTrainingJobs' });
        expect(err.hint).toMatch(/organization owner/);
        const submit = await failure(
          operator.mlTrainingClient.submitTrainingJob(org, datasetId, modelName(), '1', ModelType.OBJECT_DETECTION, ['box']),
        );
        expect(submit.code).toBe('PERMISSION_DENIED');
      } finally {
        await operator.close();
      }
    });

    test('a rejected token is replaced once by authenticating again', async () => {
      await injectFault('ListOrganizations', Code.Unauthenticated, 1);
      expect((await client.appClient.listOrganizations()).map((o) => o.id)).toContain(org);

      // The second attempt goes through Authenticate: a fault there surfaces as its error.
      await injectFault('ListOrganizations', Code.Unauthenticated, 1);
      await injectFault('Authenticate', Code.PermissionDenied, 1);
      const err = await failure(client.appClient.listOrganizations());
      expect(err).toMatchObject({ code: 'PERMISSION_DENIED', method: 'AuthService.Authenticate' });
      expect((await client.appClient.listOrganizations()).map((o) => o.id)).toContain(org); // recovers

      // Only once: a second rejection is reported.
      await injectFault('ListOrganizations', Code.Unauthenticated, 2);
      const twice = await failure(client.appClient.listOrganizations());
      expect(twice).toMatchObject({ code: 'UNAUTHENTICATED', method: 'AppService.ListOrganizations' });
      expect(twice.hint).toMatch(/FLEETFORM_API_KEY/);
    });
  });

  describe('retries', () => {
    test('reads are retried with backoff on UNAVAILABLE, DEADLINE_EXCEEDED and RESOURCE_EXHAUSTED', async () => {
      await injectFault('GetModule', Code.Unavailable, 1);
      await injectFault('GetRegistryItem', Code.ResourceExhausted, 1);
      await injectFault('ListTrainingJobs', Code.DeadlineExceeded, 1);
      expect((await client.appClient.getModule('acme:vision')).moduleId).toBe('acme:vision');
      expect((await client.appClient.getRegistryItem('acme:trainer')).type).toBe('ml_training');
      await client.mlTrainingClient.listTrainingJobs(org);
      expect(clock.waits).toEqual([50, 50, 50]);
      await injectFault('GetModule', Code.Unavailable, 2);
      await client.appClient.getModule('acme:vision');
      expect(clock.waits).toEqual([50, 50, 50, 50, 100]);
    });

    test('a read fails after the last attempt', async () => {
      await injectFault('ListLocations', Code.Unavailable, 10);
      const err = await failure(client.appClient.listLocations(org));
      expect(err).toMatchObject({ code: 'UNAVAILABLE', method: 'AppService.ListLocations' });
      expect(clock.waits).toHaveLength(3);
    });

    test('submits, creates and deletes are never repeated', async () => {
      const name = modelName();
      await injectFault('SubmitTrainingJob', Code.Unavailable, 2);
      expect(
        (await failure(client.mlTrainingClient.submitTrainingJob(org, datasetId, name, '1', ModelType.OBJECT_DETECTION, ['box']))).code,
      ).toBe('UNAVAILABLE');
      // one attempt consumed one fault: the next submit meets the second
      expect(
        (await failure(client.mlTrainingClient.submitTrainingJob(org, datasetId, name, '1', ModelType.OBJECT_DETECTION, ['box']))).code,
      ).toBe('UNAVAILABLE');
      await client.mlTrainingClient.submitTrainingJob(org, datasetId, name, '1', ModelType.OBJECT_DETECTION, ['box']);
      expect((await client.mlTrainingClient.listTrainingJobs(org)).filter((j) => j.modelName === name)).toHaveLength(1);

      for (const [method, call] of [
        ['CreateDataset', () => client.datasetClient.createDataset(`never-${transport}`, org)],
        ['NewRobot', () => client.appClient.newMachine(`never-${transport}`, emulator.credentials.locationId)],
        ['DeleteRobot', () => client.appClient.deleteMachine('whatever')],
        ['CancelTrainingJob', () => client.mlTrainingClient.cancelTrainingJob('whatever')],
      ] as const) {
        await injectFault(method, Code.Unavailable, 1);
        expect((await failure(call())).code).toBe('UNAVAILABLE');
      }
      expect(clock.waits).toEqual([]);
    });

    test('a part update is retried only when guarded by last_known_update', async () => {
      const id = await client.appClient.newMachine(`retry-${transport}`, emulator.credentials.locationId);
      const [part] = await client.appClient.getMachineParts(id);
      await injectFault('UpdateRobotPart', Code.Unavailable, 1);
      expect((await failure(client.appClient.updateMachinePart(part!.id, part!.name, PART_CONFIG))).code).toBe('UNAVAILABLE');
      expect(clock.waits).toEqual([]);
      await injectFault('UpdateRobotPart', Code.Unavailable, 1);
      const written = await client.appClient.updateMachinePart(part!.id, part!.name, PART_CONFIG, part!.lastUpdated);
      expect(written.config).toEqual(PART_CONFIG);
      expect(clock.waits).toEqual([50]);
      await client.appClient.deleteMachine(id);
    });
  });

  test('clientFor gives an authenticated raw client of another service', async () => {
    const res = await client.clientFor(EmulatorService).listModuleCards({ organizationId: org });
    expect(Array.isArray(res.cards)).toBe(true);
    const orgs = await client.clientFor(services.app).listOrganizations({});
    expect(orgs.organizations.map((o) => o.id)).toContain(org);
  });
});
