/** Authentication (API key to bearer token), hashed secrets, roles on organization/location/machine, and organization isolation. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { createClient, type Client } from '@connectrpc/connect';
import type { JsonObject } from '@bufbuild/protobuf';
import { EmulatorService, type OrganizationCredentials } from '../../src/api/emulator-control';
import { AuthService, DatasetService, type AppServiceType, type MLTrainingServiceType } from '../../src/api/services';
import { ModelType } from '../../src/domain';
import { DATABASE_FILE } from '../../src/emulator';
import { useOwnerClients } from './fixture';
import { clientOf, codeOf, newMachine, tokenFor, transport } from './helpers';

const fx = useOwnerClients();

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
  const res = await fx.app.createKey({
    authorizations: [
      {
        authorizationType: 'role',
        authorizationId: `${resourceType}_${role}`,
        resourceType,
        resourceId,
        organizationId: fx.emulator.credentials.organizationId,
      },
    ],
    name: `${role} of ${resourceType}`,
  });
  return { apiKeyId: res.id, apiKey: res.key };
}

describe('Authenticate', () => {
  const auth = () => createClient(AuthService, transport(fx.emulator.url, 'grpc'));

  test('missing credentials: InvalidArgument "credentials required"', async () => {
    expect(await failure(auth().authenticate({ entity: fx.emulator.credentials.apiKeyId }))).toEqual({
      code: 'InvalidArgument',
      message: 'credentials required',
    });
  });

  test('unknown credential type: InvalidArgument', async () => {
    const res = auth().authenticate({ entity: fx.emulator.credentials.apiKeyId, credentials: { type: 'password', payload: 'x' } });
    expect((await failure(res)).code).toBe('InvalidArgument');
  });

  test.each([
    ['a wrong key', () => fx.emulator.credentials.apiKeyId, 'wrong'],
    ['an unknown key id', () => 'no-such-key', 'wrong'],
  ])('%s: PermissionDenied "failed to authenticate: ..."', async (_name, entity, payload) => {
    const res = await failure(auth().authenticate({ entity: entity(), credentials: { type: 'api-key', payload } }));
    expect(res.code).toBe('PermissionDenied');
    expect(res.message).toMatch(/^failed to authenticate: /);
  });

  test('the right key gets a token that works on other calls', async () => {
    const token = await tokenFor(fx.emulator.url, fx.emulator.credentials.apiKeyId, fx.emulator.credentials.apiKey, 'grpc');
    const client = createClient(fx.services.app, transport(fx.emulator.url, 'grpc', { authorization: `Bearer ${token}` }));
    expect((await client.listOrganizations({})).organizations).toHaveLength(1);
  });
});

describe('bearer header', () => {
  const call = (headers?: Record<string, string>) =>
    createClient(fx.services.app, transport(fx.emulator.url, 'grpc-web', headers)).listOrganizations({});

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
    const token = await tokenFor(fx.emulator.url, fx.emulator.credentials.apiKeyId, fx.emulator.credentials.apiKey);
    const db = new Database(path.join(fx.dataDir, DATABASE_FILE), { readonly: true, fileMustExist: true });
    try {
      const keyRow = db.prepare('SELECT * FROM api_keys WHERE id = ?').get(fx.emulator.credentials.apiKeyId) as Record<string, unknown>;
      expect(keyRow).toBeDefined();
      for (const value of Object.values(keyRow)) expect(String(value)).not.toContain(fx.emulator.credentials.apiKey);
      expect((keyRow.hash as Buffer).length).toBe(32);
      expect((keyRow.salt as Buffer).length).toBe(16);
      const tokens = db.prepare('SELECT token_hash FROM access_tokens').all() as { token_hash: string }[];
      expect(tokens.length).toBeGreaterThan(0);
      expect(tokens.map((t) => t.token_hash)).not.toContain(token);
    } finally {
      db.close();
    }
    for (const file of fs.readdirSync(fx.dataDir).filter((f) => f.startsWith(DATABASE_FILE))) {
      const bytes = fs.readFileSync(path.join(fx.dataDir, file)).toString('latin1');
      expect(bytes).not.toContain(fx.emulator.credentials.apiKey);
      expect(bytes).not.toContain(token);
    }
  });

  test('credentials.json holds the seeded owner key, owner-only', () => {
    const file = path.join(fx.dataDir, 'credentials.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual(fx.emulator.credentials);
  });
});

describe('roles', () => {
  test('an organization operator reads but does not change, and cannot use ML training', async () => {
    const { partId, partName, robotId } = await newMachine(fx.app, fx.emulator.credentials.locationId, 'op-target');
    const creds = await keyWith('operator', 'organization', fx.emulator.credentials.organizationId);
    const opApp = await clientOf(fx.emulator, fx.services.app, { credentials: creds });
    expect((await opApp.getRobotPart({ id: partId })).part?.id).toBe(partId);
    expect((await opApp.listRobots({ locationId: fx.emulator.credentials.locationId })).robots.map((r) => r.id)).toContain(robotId);
    const write = opApp.updateRobotPart({ id: partId, name: partName, robotConfig: fx.services.sdk.Struct.fromJson({}) });
    expect(await codeOf(write)).toBe('PermissionDenied');
    expect(await codeOf(opApp.newRobot({ name: 'x', location: fx.emulator.credentials.locationId }))).toBe('PermissionDenied');
    expect(await codeOf(opApp.deleteRobot({ id: robotId }))).toBe('PermissionDenied');
    const ml = await clientOf(fx.emulator, fx.services.mlTraining, { credentials: creds });
    expect(await codeOf(ml.listTrainingJobs({ organizationId: fx.emulator.credentials.organizationId }))).toBe('PermissionDenied');
    const ds = await clientOf(fx.emulator, DatasetService, { credentials: creds });
    expect(await codeOf(ds.listDatasetsByOrganizationID({ organizationId: fx.emulator.credentials.organizationId }))).toBe('ok');
    expect(await codeOf(ds.createDataset({ name: 'op', organizationId: fx.emulator.credentials.organizationId }))).toBe('PermissionDenied');
    expect(
      await codeOf(
        opApp.createKey({
          authorizations: [{ authorizationType: 'role', authorizationId: 'robot_owner', resourceType: 'robot', resourceId: robotId }],
        }),
      ),
    ).toBe('PermissionDenied');
    const opControls = await clientOf(fx.emulator, EmulatorService, { credentials: creds });
    expect(await codeOf(opControls.listModuleCards({}))).toBe('PermissionDenied');
  });

  test('a location owner manages machines of its location only', async () => {
    const { location } = await fx.app.createLocation({ organizationId: fx.emulator.credentials.organizationId, name: 'Second site' });
    const siteId = location?.id ?? '';
    const outside = await newMachine(fx.app, fx.emulator.credentials.locationId, 'outside-site');
    const creds = await keyWith('owner', 'location', siteId);
    const locApp = await clientOf(fx.emulator, fx.services.app, { credentials: creds });
    const inside = await newMachine(locApp, siteId, 'inside-site');
    await locApp.updateRobotPart({
      id: inside.partId,
      name: inside.partName,
      robotConfig: fx.services.sdk.Struct.fromJson({ components: [] }),
    });
    expect(await codeOf(locApp.getRobot({ id: outside.robotId }))).toBe('PermissionDenied');
    expect(await codeOf(locApp.newRobot({ name: 'x', location: fx.emulator.credentials.locationId }))).toBe('PermissionDenied');
    const { locations } = await locApp.listLocations({ organizationId: fx.emulator.credentials.organizationId });
    expect(locations.map((l) => l.id)).toEqual([siteId]);
    const ml = await clientOf(fx.emulator, fx.services.mlTraining, { credentials: creds });
    expect(await codeOf(ml.listTrainingJobs({ organizationId: fx.emulator.credentials.organizationId }))).toBe('PermissionDenied');
  });

  test('a machine owner configures its machine only', async () => {
    const mine = await newMachine(fx.app, fx.emulator.credentials.locationId, 'scoped-mine');
    const other = await newMachine(fx.app, fx.emulator.credentials.locationId, 'scoped-other');
    const creds = await keyWith('owner', 'robot', mine.robotId);
    const robotApp = await clientOf(fx.emulator, fx.services.app, { credentials: creds });
    const config: JsonObject = { components: [] };
    await robotApp.updateRobotPart({ id: mine.partId, name: mine.partName, robotConfig: fx.services.sdk.Struct.fromJson(config) });
    expect(await codeOf(robotApp.getRobotPart({ id: other.partId }))).toBe('PermissionDenied');
    const visible = (await robotApp.listRobots({ locationId: fx.emulator.credentials.locationId })).robots.map((r) => r.id);
    expect(visible).toEqual([mine.robotId]);
    expect(
      await codeOf(
        robotApp.createKey({
          authorizations: [
            {
              authorizationType: 'role',
              authorizationId: 'organization_owner',
              resourceType: 'organization',
              resourceId: fx.emulator.credentials.organizationId,
            },
          ],
        }),
      ),
    ).toBe('PermissionDenied');
  });
});

describe('organization isolation', () => {
  let other: OrganizationCredentials;
  let otherApp: Client<AppServiceType>;
  let otherMl: Client<MLTrainingServiceType>;
  beforeAll(async () => {
    other = await fx.controls.createOrganization({ name: 'Globex', publicNamespace: 'globex' });
    otherApp = await clientOf(fx.emulator, fx.services.app, { credentials: other });
    otherMl = await clientOf(fx.emulator, fx.services.mlTraining, { credentials: other });
  });

  test('each key sees its own organization only', async () => {
    expect((await otherApp.listOrganizations({})).organizations.map((o) => o.id)).toEqual([other.organizationId]);
    expect((await fx.app.listOrganizations({})).organizations.map((o) => o.id)).toEqual([fx.emulator.credentials.organizationId]);
  });

  test("another organization's machines, parts, locations, datasets and jobs cannot be read", async () => {
    const target = await newMachine(fx.app, fx.emulator.credentials.locationId, 'isolated');
    const ml = await clientOf(fx.emulator, fx.services.mlTraining);
    const { id: jobId } = await ml.submitTrainingJob({
      organizationId: fx.emulator.credentials.organizationId,
      datasetId: fx.emulator.credentials.datasetId,
      modelName: 'isolated',
      modelVersion: '1',
      modelType: ModelType.SINGLE_LABEL_CLASSIFICATION,
      tags: ['a'],
    });
    const orgA = fx.emulator.credentials.organizationId;
    expect(await codeOf(otherApp.getRobot({ id: target.robotId }))).toBe('NotFound');
    expect(await codeOf(otherApp.getRobotPart({ id: target.partId }))).toBe('NotFound');
    expect(await codeOf(otherApp.listRobots({ locationId: fx.emulator.credentials.locationId }))).toBe('NotFound');
    expect(await codeOf(otherApp.listLocations({ organizationId: orgA }))).toBe('PermissionDenied');
    expect(await codeOf(otherApp.getOrganization({ organizationId: orgA }))).toBe('PermissionDenied');
    expect(await codeOf(otherMl.getTrainingJob({ id: jobId }))).toBe('NotFound');
    expect(await codeOf(otherMl.cancelTrainingJob({ id: jobId }))).toBe('NotFound');
    expect(await codeOf(otherMl.listTrainingJobs({ organizationId: orgA }))).toBe('PermissionDenied');
    const otherDs = await clientOf(fx.emulator, DatasetService, { credentials: other });
    expect(await codeOf(otherDs.listDatasetsByOrganizationID({ organizationId: orgA }))).toBe('PermissionDenied');
    expect((await otherDs.listDatasetsByIDs({ ids: [fx.emulator.credentials.datasetId] })).datasets).toEqual([]);
    const otherControls = await clientOf(fx.emulator, EmulatorService, { credentials: other });
    expect(await codeOf(otherControls.advanceTrainingJob({ id: jobId }))).toBe('NotFound');
    expect(await codeOf(otherControls.publishModuleVersion({ moduleId: 'acme:sensors', version: '9.0.0' }))).toBe('PermissionDenied');
    expect(await codeOf(otherControls.publishModuleVersion({ moduleId: 'acme:brand-new', version: '1.0.0' }))).toBe('PermissionDenied');
  });

  test("public registry items are readable by every organization; publishing into one's own namespace works", async () => {
    expect((await otherApp.getModule({ moduleId: 'acme:sensors' })).module?.moduleId).toBe('acme:sensors');
    const otherControls = await clientOf(fx.emulator, EmulatorService, { credentials: other });
    const res = await otherControls.publishModuleVersion({
      moduleId: 'globex:grippers',
      version: '0.1.0',
      models: [{ api: 'rdk:component:gripper', model: 'globex:grippers:claw' }],
    });
    expect(res.moduleId).toBe('globex:grippers');
    expect((await fx.app.getModule({ moduleId: 'globex:grippers' })).module?.organizationId).toBe(other.organizationId);
  });

  test('a job submitted to another organization is PermissionDenied', async () => {
    const ml = await clientOf(fx.emulator, fx.services.mlTraining);
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
    await fx.controls.injectFault({ method: 'ListOrganizations', code: 14, message: 'maintenance', count: 2 });
    expect(await failure(fx.app.listOrganizations({}))).toEqual({ code: 'Unavailable', message: 'maintenance' });
    expect(await failure(fx.app.listOrganizations({}))).toEqual({ code: 'Unavailable', message: 'maintenance' });
    expect(await codeOf(fx.app.listOrganizations({}))).toBe('ok');
  });

  test('faults by full method name, and clearing them', async () => {
    await fx.controls.injectFault({ method: 'viam.app.v1.AppService/GetModule', code: 13, count: 5 });
    expect(await codeOf(fx.app.getModule({ moduleId: 'acme:vision' }))).toBe('Internal');
    expect((await fx.controls.clearFaults({})).cleared).toBe(1);
    expect(await codeOf(fx.app.getModule({ moduleId: 'acme:vision' }))).toBe('ok');
  });

  test('the controls themselves cannot be faulted, and codes must be real status codes', async () => {
    expect(await codeOf(fx.controls.injectFault({ method: 'ClearFaults', code: 14 }))).toBe('InvalidArgument');
    expect(await codeOf(fx.controls.clearFaults({}))).toBe('ok');
    expect(await codeOf(fx.controls.injectFault({ method: 'GetModule', code: 0 }))).toBe('InvalidArgument');
  });
});
