/** Authentication (reference.md "Auth"), hashed secrets, roles on organization/location/machine, and organization isolation. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { createPromiseClient, type PromiseClient } from '@connectrpc/connect';
import type { JsonObject } from '@bufbuild/protobuf';
import { EmulatorService, type EmulatorServiceType, type OrganizationCredentials } from '../../src/api/emulator-control';
import {
  AuthService,
  DatasetService,
  loadServices,
  type AppServiceType,
  type MLTrainingServiceType,
  type Services,
} from '../../src/api/services';
import { ModelType } from '../../src/domain';
import { DATABASE_FILE, type RunningEmulator } from '../../src/emulator';
import { clientOf, codeOf, newMachine, startTemp, tokenFor, transport } from './helpers';

let emulator: RunningEmulator;
let dataDir: string;
let services: Services;
let app: PromiseClient<AppServiceType>;
let controls: PromiseClient<EmulatorServiceType>;
beforeAll(async () => {
  ({ emulator, dataDir } = await startTemp());
  services = await loadServices();
  app = await clientOf(emulator, services.app);
  controls = await clientOf(emulator, EmulatorService);
});
afterAll(async () => {
  await emulator.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function failure(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  const { Code, ConnectError } = await import('@connectrpc/connect');
  try {
    await p;
  } catch (err) {
    if (err instanceof ConnectError) return { code: Code[err.code], message: err.rawMessage };
    throw err;
  }
  return { code: 'ok', message: '' };
}

/** A key with one authorization, created by the seeded owner through AppService.CreateKey. */
async function keyWith(role: 'owner' | 'operator', resourceType: 'organization' | 'location' | 'robot', resourceId: string) {
  const res = await app.createKey({
    authorizations: [
      {
        authorizationType: 'role',
        authorizationId: `${resourceType}_${role}`,
        resourceType,
        resourceId,
        organizationId: emulator.credentials.organizationId,
      },
    ],
    name: `${role} of ${resourceType}`,
  });
  return { apiKeyId: res.id, apiKey: res.key };
}

describe('Authenticate', () => {
  const auth = () => createPromiseClient(AuthService, transport(emulator.url, 'grpc'));

  test('missing credentials: InvalidArgument "credentials required"', async () => {
    expect(await failure(auth().authenticate({ entity: emulator.credentials.apiKeyId }))).toEqual({
      code: 'InvalidArgument',
      message: 'credentials required',
    });
  });

  test('unknown credential type: InvalidArgument', async () => {
    const res = auth().authenticate({ entity: emulator.credentials.apiKeyId, credentials: { type: 'password', payload: 'x' } });
    expect((await failure(res)).code).toBe('InvalidArgument');
  });

  test.each([
    ['a wrong key', () => emulator.credentials.apiKeyId, 'wrong'],
    ['an unknown key id', () => 'no-such-key', 'wrong'],
  ])('%s: PermissionDenied "failed to authenticate: ..."', async (_name, entity, payload) => {
    const res = await failure(auth().authenticate({ entity: entity(), credentials: { type: 'api-key', payload } }));
    expect(res.code).toBe('PermissionDenied');
    expect(res.message).toMatch(/^failed to authenticate: /);
  });

  test('the right key gets a token that works on other calls', async () => {
    const token = await tokenFor(emulator.url, emulator.credentials.apiKeyId, emulator.credentials.apiKey, 'grpc');
    const client = createPromiseClient(services.app, transport(emulator.url, 'grpc', { authorization: `Bearer ${token}` }));
    expect((await client.listOrganizations({})).organizations).toHaveLength(1);
  });
});

describe('bearer header', () => {
  const call = (headers?: Record<string, string>) =>
    createPromiseClient(services.app, transport(emulator.url, 'grpc-web', headers)).listOrganizations({});

  test('missing: Unauthenticated "authentication required"', async () => {
    expect(await failure(call())).toEqual({ code: 'Unauthenticated', message: 'authentication required' });
  });

  test.each(['Basic abc', 'bearer abc', 'Bearer ', 'abc'])('malformed %j: Unauthenticated with the Bearer prefix message', async (h) => {
    expect(await failure(call({ authorization: h }))).toEqual({
      code: 'Unauthenticated',
      message: 'expected authorization header with prefix: Bearer ',
    });
  });

  test('unknown token: Unauthenticated', async () => {
    expect((await failure(call({ authorization: 'Bearer made-up' }))).code).toBe('Unauthenticated');
  });
});

describe('secrets at rest', () => {
  test('API keys and tokens are stored as hashes only', async () => {
    const token = await tokenFor(emulator.url, emulator.credentials.apiKeyId, emulator.credentials.apiKey);
    const db = new Database(path.join(dataDir, DATABASE_FILE), { readonly: true, fileMustExist: true });
    try {
      const keyRow = db.prepare('SELECT * FROM api_keys WHERE id = ?').get(emulator.credentials.apiKeyId) as Record<string, unknown>;
      expect(keyRow).toBeDefined();
      for (const value of Object.values(keyRow)) expect(String(value)).not.toContain(emulator.credentials.apiKey);
      expect((keyRow.hash as Buffer).length).toBe(32);
      expect((keyRow.salt as Buffer).length).toBe(16);
      const tokens = db.prepare('SELECT token_hash FROM access_tokens').all() as { token_hash: string }[];
      expect(tokens.length).toBeGreaterThan(0);
      expect(tokens.map((t) => t.token_hash)).not.toContain(token);
    } finally {
      db.close();
    }
    for (const file of fs.readdirSync(dataDir).filter((f) => f.startsWith(DATABASE_FILE))) {
      const bytes = fs.readFileSync(path.join(dataDir, file)).toString('latin1');
      expect(bytes).not.toContain(emulator.credentials.apiKey);
      expect(bytes).not.toContain(token);
    }
  });

  test('credentials.json holds the seeded owner key, owner-only', () => {
    const file = path.join(dataDir, 'credentials.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual(emulator.credentials);
  });
});

describe('roles', () => {
  test('an organization operator reads but does not change, and cannot use ML training', async () => {
    const { partId, partName, robotId } = await newMachine(app, emulator.credentials.locationId, 'op-target');
    const creds = await keyWith('operator', 'organization', emulator.credentials.organizationId);
    const opApp = await clientOf(emulator, services.app, { credentials: creds });
    expect((await opApp.getRobotPart({ id: partId })).part?.id).toBe(partId);
    expect((await opApp.listRobots({ locationId: emulator.credentials.locationId })).robots.map((r) => r.id)).toContain(robotId);
    const write = opApp.updateRobotPart({ id: partId, name: partName, robotConfig: services.sdk.Struct.fromJson({}) });
    expect(await codeOf(write)).toBe('PermissionDenied');
    expect(await codeOf(opApp.newRobot({ name: 'x', location: emulator.credentials.locationId }))).toBe('PermissionDenied');
    expect(await codeOf(opApp.deleteRobot({ id: robotId }))).toBe('PermissionDenied');
    const ml = await clientOf(emulator, services.mlTraining, { credentials: creds });
    expect(await codeOf(ml.listTrainingJobs({ organizationId: emulator.credentials.organizationId }))).toBe('PermissionDenied');
    const ds = await clientOf(emulator, DatasetService, { credentials: creds });
    expect(await codeOf(ds.listDatasetsByOrganizationID({ organizationId: emulator.credentials.organizationId }))).toBe('ok');
    expect(await codeOf(ds.createDataset({ name: 'op', organizationId: emulator.credentials.organizationId }))).toBe('PermissionDenied');
    expect(await codeOf(opApp.createKey({ authorizations: [{ authorizationType: 'role', authorizationId: 'robot_owner', resourceType: 'robot', resourceId: robotId }] }))).toBe(
      'PermissionDenied',
    );
    const opControls = await clientOf(emulator, EmulatorService, { credentials: creds });
    expect(await codeOf(opControls.listModuleCards({}))).toBe('PermissionDenied');
  });

  test('a location owner manages machines of its location only', async () => {
    const { location } = await app.createLocation({ organizationId: emulator.credentials.organizationId, name: 'Second site' });
    const siteId = location?.id ?? '';
    const outside = await newMachine(app, emulator.credentials.locationId, 'outside-site');
    const creds = await keyWith('owner', 'location', siteId);
    const locApp = await clientOf(emulator, services.app, { credentials: creds });
    const inside = await newMachine(locApp, siteId, 'inside-site');
    await locApp.updateRobotPart({ id: inside.partId, name: inside.partName, robotConfig: services.sdk.Struct.fromJson({ components: [] }) });
    expect(await codeOf(locApp.getRobot({ id: outside.robotId }))).toBe('PermissionDenied');
    expect(await codeOf(locApp.newRobot({ name: 'x', location: emulator.credentials.locationId }))).toBe('PermissionDenied');
    const { locations } = await locApp.listLocations({ organizationId: emulator.credentials.organizationId });
    expect(locations.map((l) => l.id)).toEqual([siteId]);
    const ml = await clientOf(emulator, services.mlTraining, { credentials: creds });
    expect(await codeOf(ml.listTrainingJobs({ organizationId: emulator.credentials.organizationId }))).toBe('PermissionDenied');
  });

  test('a machine owner configures its machine only', async () => {
    const mine = await newMachine(app, emulator.credentials.locationId, 'scoped-mine');
    const other = await newMachine(app, emulator.credentials.locationId, 'scoped-other');
    const creds = await keyWith('owner', 'robot', mine.robotId);
    const robotApp = await clientOf(emulator, services.app, { credentials: creds });
    const config: JsonObject = { components: [] };
    await robotApp.updateRobotPart({ id: mine.partId, name: mine.partName, robotConfig: services.sdk.Struct.fromJson(config) });
    expect(await codeOf(robotApp.getRobotPart({ id: other.partId }))).toBe('PermissionDenied');
    const visible = (await robotApp.listRobots({ locationId: emulator.credentials.locationId })).robots.map((r) => r.id);
    expect(visible).toEqual([mine.robotId]);
    expect(await codeOf(robotApp.createKey({ authorizations: [{ authorizationType: 'role', authorizationId: 'organization_owner', resourceType: 'organization', resourceId: emulator.credentials.organizationId }] }))).toBe('PermissionDenied');
  });
});

describe('organization isolation', () => {
  let other: OrganizationCredentials;
  let otherApp: PromiseClient<AppServiceType>;
  let otherMl: PromiseClient<MLTrainingServiceType>;
  beforeAll(async () => {
    other = await controls.createOrganization({ name: 'Globex', publicNamespace: 'globex' });
    otherApp = await clientOf(emulator, services.app, { credentials: other });
    otherMl = await clientOf(emulator, services.mlTraining, { credentials: other });
  });

  test('each key sees its own organization only', async () => {
    expect((await otherApp.listOrganizations({})).organizations.map((o) => o.id)).toEqual([other.organizationId]);
    expect((await app.listOrganizations({})).organizations.map((o) => o.id)).toEqual([emulator.credentials.organizationId]);
  });

  test('another organization\'s machines, parts, locations, datasets and jobs cannot be read', async () => {
    const target = await newMachine(app, emulator.credentials.locationId, 'isolated');
    const ml = await clientOf(emulator, services.mlTraining);
    const { id: jobId } = await ml.submitTrainingJob({
      organizationId: emulator.credentials.organizationId,
      datasetId: emulator.credentials.datasetId,
      modelName: 'isolated',
      modelVersion: '1',
      modelType: ModelType.SINGLE_LABEL_CLASSIFICATION,
      tags: ['a'],
    });
    const orgA = emulator.credentials.organizationId;
    expect(await codeOf(otherApp.getRobot({ id: target.robotId }))).toBe('NotFound');
    expect(await codeOf(otherApp.getRobotPart({ id: target.partId }))).toBe('NotFound');
    expect(await codeOf(otherApp.listRobots({ locationId: emulator.credentials.locationId }))).toBe('NotFound');
    expect(await codeOf(otherApp.listLocations({ organizationId: orgA }))).toBe('PermissionDenied');
    expect(await codeOf(otherApp.getOrganization({ organizationId: orgA }))).toBe('PermissionDenied');
    expect(await codeOf(otherMl.getTrainingJob({ id: jobId }))).toBe('NotFound');
    expect(await codeOf(otherMl.cancelTrainingJob({ id: jobId }))).toBe('NotFound');
    expect(await codeOf(otherMl.listTrainingJobs({ organizationId: orgA }))).toBe('PermissionDenied');
    const otherDs = await clientOf(emulator, DatasetService, { credentials: other });
    expect(await codeOf(otherDs.listDatasetsByOrganizationID({ organizationId: orgA }))).toBe('PermissionDenied');
    expect((await otherDs.listDatasetsByIDs({ ids: [emulator.credentials.datasetId] })).datasets).toEqual([]);
    const otherControls = await clientOf(emulator, EmulatorService, { credentials: other });
    expect(await codeOf(otherControls.advanceTrainingJob({ id: jobId }))).toBe('NotFound');
    expect(await codeOf(otherControls.publishModuleVersion({ moduleId: 'acme:sensors', version: '9.0.0' }))).toBe('PermissionDenied');
    expect(await codeOf(otherControls.publishModuleVersion({ moduleId: 'acme:brand-new', version: '1.0.0' }))).toBe('PermissionDenied');
  });

  test('public registry items are readable by every organization; publishing into one\'s own namespace works', async () => {
    expect((await otherApp.getModule({ moduleId: 'acme:sensors' })).module?.moduleId).toBe('acme:sensors');
    const otherControls = await clientOf(emulator, EmulatorService, { credentials: other });
    const res = await otherControls.publishModuleVersion({
      moduleId: 'globex:grippers',
      version: '0.1.0',
      models: [{ api: 'rdk:component:gripper', model: 'globex:grippers:claw' }],
    });
    expect(res.moduleId).toBe('globex:grippers');
    expect((await app.getModule({ moduleId: 'globex:grippers' })).module?.organizationId).toBe(other.organizationId);
  });

  test('a job submitted to another organization is PermissionDenied', async () => {
    const ml = await clientOf(emulator, services.mlTraining);
    const res = ml.submitTrainingJob({
      organizationId: other.organizationId,
      datasetId: other.datasetId,
      modelName: 'x',
      modelVersion: '1',
      modelType: ModelType.OBJECT_DETECTION,
      tags: ['a'],
    });
    expect(await codeOf(res)).toBe('PermissionDenied');
  });
});

describe('faults', () => {
  test('the next N calls of a method fail with the injected status, then calls succeed again', async () => {
    await controls.injectFault({ method: 'ListOrganizations', code: 14, message: 'maintenance', count: 2 });
    expect(await failure(app.listOrganizations({}))).toEqual({ code: 'Unavailable', message: 'maintenance' });
    expect(await failure(app.listOrganizations({}))).toEqual({ code: 'Unavailable', message: 'maintenance' });
    expect(await codeOf(app.listOrganizations({}))).toBe('ok');
  });

  test('faults by full method name, and clearing them', async () => {
    await controls.injectFault({ method: 'viam.app.v1.AppService/GetModule', code: 13, count: 5 });
    expect(await codeOf(app.getModule({ moduleId: 'acme:vision' }))).toBe('Internal');
    expect((await controls.clearFaults({})).cleared).toBe(1);
    expect(await codeOf(app.getModule({ moduleId: 'acme:vision' }))).toBe('ok');
  });

  test('the controls themselves cannot be faulted, and codes must be real status codes', async () => {
    await controls.injectFault({ method: 'ClearFaults', code: 14 });
    expect(await codeOf(controls.clearFaults({}))).toBe('ok');
    expect(await codeOf(controls.injectFault({ method: 'GetModule', code: 0 }))).toBe('InvalidArgument');
  });
});
