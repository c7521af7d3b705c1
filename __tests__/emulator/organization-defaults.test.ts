/**
 * An organization's default fragments on the emulator: set and read through fleetform's
 * client (typed variables, a prefix, a tag), read by the official SDK's GetOrganization and
 * kept by its UpdateOrganization of the name alone, the older strings-only variables read
 * typed, and a machine created (NewRobot) in the organization starting with a config that
 * imports them; cleared, new machines start empty. What the service refuses is refused.
 */
import { createServiceClient, ServiceError, type ServiceClient } from '../../src/api/client';
import { loadServices, type AppServiceType } from '../../src/api/services';
import { loadSdk, type Sdk } from '../../src/api/sdk';
import { EmulatorService } from '../../src/api/emulator-control';
import type { Client } from '@connectrpc/connect';
import { useEmulator } from './fixture';
import { clientOf, newMachine } from './helpers';

type ViamClient = Awaited<ReturnType<Sdk['createViamClient']>>;

const fx = useEmulator();
let sdk: Sdk;
let viam: ViamClient;
let ours: ServiceClient;
let app: Client<AppServiceType>;

beforeAll(async () => {
  sdk = await loadSdk();
  const { apiKeyId, apiKey } = fx.emulator.credentials;
  viam = await sdk.createViamClient({
    serviceHost: fx.emulator.url,
    credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey },
  });
  ours = await createServiceClient({
    serviceHost: fx.emulator.url,
    credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey },
  });
  app = await clientOf(fx.emulator, (await loadServices()).app);
});
afterAll(async () => {
  await ours?.close();
});

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    if (err instanceof ServiceError) return err.code;
    throw err;
  }
}

const rig = {
  components: [
    { name: 'board', api: 'rdk:component:board', model: 'rdk:builtin:fake', attributes: { pin: { $variable: { name: 'pin' } } } },
  ],
};

test('default fragments are set, read by both clients, kept by a rename, and imported by every new machine', async () => {
  const c = ours.appClient;
  const { organizationId, locationId } = fx.emulator.credentials;
  const a = await c.createFragment(organizationId, 'rig', rig);
  const b = await c.createFragment(organizationId, 'base', {});
  await c.setFragmentTag(a.id, 'stable', '1');
  const defaults = [
    { id: a.id, version: 'stable', prefix: 'front', variables: { pin: 11, fast: true, limits: { max: 3, names: ['x'] }, label: 'left' } },
    { id: b.id },
  ];
  expect((await c.setDefaultFragments(organizationId, defaults)).defaultFragments).toEqual(defaults);
  expect((await c.getOrganization(organizationId)).defaultFragments).toEqual(defaults);

  // The SDK's messages lack the field: its calls read and rename the organization, and leave the defaults.
  expect(await viam.appClient.getOrganization(organizationId)).toMatchObject({ id: organizationId });
  const renamed = await viam.appClient.updateOrganization(organizationId, 'Renamed Org');
  expect(renamed?.name).toBe('Renamed Org');
  expect((await c.getOrganization(organizationId)).defaultFragments).toEqual(defaults);

  const robotId = await viam.appClient.newRobot(locationId, 'fresh');
  const [part] = await c.getMachineParts(robotId);
  expect(part?.config).toEqual({ fragments: defaults });
  // The service resolves both imports for the new machine.
  const resolved = await c.listMachineFragments(robotId);
  expect(resolved.resolved.map((r) => r.fragmentId).sort()).toEqual([a.id, b.id].sort());

  expect((await c.setDefaultFragments(organizationId, [])).defaultFragments).toEqual([]);
  const emptyId = await viam.appClient.newRobot(locationId, 'bare');
  expect((await c.getMachineParts(emptyId))[0]?.config).toEqual({});
});

test('the older strings-only variables are read as the import variables, and answered in both forms', async () => {
  const { organizationId } = fx.emulator.credentials;
  const f = await ours.appClient.createFragment(organizationId, 'legacy', rig);
  const res = await app.updateOrganization({
    organizationId,
    defaultFragments: { fragments: [{ fragmentId: f.id, version: '1', variables: { pin: '7' } }] },
  });
  const [answered] = res.organization?.defaultFragments?.fragments ?? [];
  expect(answered?.variables).toEqual({ pin: '7' });
  expect(answered?.fragmentVariables?.toJson()).toEqual({ pin: '7' });
  expect((await ours.appClient.getOrganization(organizationId)).defaultFragments).toEqual([
    { id: f.id, version: '1', variables: { pin: '7' } },
  ]);
  await ours.appClient.setDefaultFragments(organizationId, []);
});

test('an unknown or private foreign fragment, and a caller without owner rights, are refused', async () => {
  const { organizationId } = fx.emulator.credentials;
  expect(await codeOf(ours.appClient.setDefaultFragments(organizationId, [{ id: 'no-such-fragment' }]))).toBe('INVALID_ARGUMENT');
  const controls = await clientOf(fx.emulator, EmulatorService);
  const other = await controls.createOrganization({ name: 'Other', publicNamespace: 'other-defaults' });
  const theirs = await createServiceClient({
    serviceHost: fx.emulator.url,
    credentials: { type: 'api-key', authEntity: other.apiKeyId, payload: other.apiKey },
  });
  try {
    const hidden = await theirs.appClient.createFragment(other.organizationId, 'hidden', {});
    expect(await codeOf(ours.appClient.setDefaultFragments(organizationId, [{ id: hidden.id }]))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(theirs.appClient.setDefaultFragments(organizationId, []))).toBe('PERMISSION_DENIED');
    expect(await codeOf(theirs.appClient.getOrganization(organizationId))).toBe('PERMISSION_DENIED');
  } finally {
    await theirs.close();
  }
  expect((await ours.appClient.getOrganization(organizationId)).defaultFragments).toEqual([]);
  // A machine made before any default stays as it was.
  const m = await newMachine(app, fx.emulator.credentials.locationId, 'unchanged');
  expect((await ours.appClient.getMachineParts(m.robotId))[0]?.config).toEqual({});
});
