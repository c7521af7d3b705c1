/** With an injected clock: token expiry, timestamps as written, and config writes within one millisecond. */
import { loadServices, type Services } from '../../src/api/services';
import { ModelType } from '../../src/domain';
import { useEmulator } from './fixture';
import { clientOf, codeOf, newMachine } from './helpers';

const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);
let now = T0;
const fx = useEmulator({ now: () => now });
let services: Services;
beforeAll(async () => {
  services = await loadServices();
});

test('an access token expires after 24 hours; authenticating again works', async () => {
  now = T0;
  const app = await clientOf(fx.emulator, services.app);
  expect(await codeOf(app.listOrganizations({}))).toBe('ok');
  now = T0 + 24 * 60 * 60 * 1000 - 1;
  expect(await codeOf(app.listOrganizations({}))).toBe('ok');
  now = T0 + 24 * 60 * 60 * 1000;
  const expired = await app.listOrganizations({}).catch((e: Error) => e);
  expect(await codeOf(Promise.reject(expired))).toBe('Unauthenticated');
  expect((expired as Error).message).toContain('expired');
  const fresh = await clientOf(fx.emulator, services.app);
  expect(await codeOf(fresh.listOrganizations({}))).toBe('ok');
});

test("timestamps are the clock's", async () => {
  now = T0 + 5000;
  const ml = await clientOf(fx.emulator, services.mlTraining);
  const { id } = await ml.submitTrainingJob({
    organizationId: fx.emulator.credentials.organizationId,
    datasetId: fx.emulator.credentials.datasetId,
    modelName: 'clocked',
    modelVersion: '1',
    modelType: ModelType.OBJECT_DETECTION,
    tags: ['a'],
  });
  const m = (await ml.getTrainingJob({ id })).metadata;
  expect(m?.createdOn?.toDate().getTime()).toBe(T0 + 5000);
});

test('two config writes in the same millisecond get distinct last_updated, so a stale write is still caught', async () => {
  now = T0 + 10_000;
  const app = await clientOf(fx.emulator, services.app);
  const m = await newMachine(app, fx.emulator.credentials.locationId, 'same-ms');
  const base = (await app.getRobotPart({ id: m.partId })).part?.lastUpdated;
  expect(base?.toDate().getTime()).toBe(T0 + 10_000);
  const a = await app.updateRobotPart({
    id: m.partId,
    name: m.partName,
    robotConfig: services.sdk.Struct.fromJson({ components: [] }),
    lastKnownUpdate: base,
  });
  expect(a.part?.lastUpdated?.toDate().getTime()).toBe(T0 + 10_001);
  const stale = app.updateRobotPart({
    id: m.partId,
    name: m.partName,
    robotConfig: services.sdk.Struct.fromJson({ services: [] }),
    lastKnownUpdate: base,
  });
  expect(await codeOf(stale)).toBe('FailedPrecondition');
});
