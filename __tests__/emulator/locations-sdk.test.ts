/**
 * Locations through the official SDK's appClient, unchanged: create (nested), get, list,
 * update (rename, move, back to the top level), delete, and what the service refuses.
 */
import { loadSdk, type Sdk } from '../../src/api/sdk';
import { useEmulator } from './fixture';

type ViamClient = Awaited<ReturnType<Sdk['createViamClient']>>;

const fx = useEmulator();
let sdk: Sdk;
let viam: ViamClient;
beforeAll(async () => {
  sdk = await loadSdk();
  const { apiKeyId, apiKey } = fx.emulator.credentials;
  viam = await sdk.createViamClient({
    serviceHost: fx.emulator.url,
    credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey },
  });
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

test('create, nest, list, rename, move and delete locations', async () => {
  const app = viam.appClient;
  const { organizationId } = fx.emulator.credentials;
  const site = await app.createLocation(organizationId, 'site');
  expect(site).toMatchObject({ name: 'site', parentLocationId: '', robotCount: 0 });
  expect(site?.organizations).toEqual([expect.objectContaining({ organizationId, primary: true })]);
  const lab = await app.createLocation(organizationId, 'lab', site?.id);
  expect(lab).toMatchObject({ name: 'lab', parentLocationId: site?.id });

  expect((await app.getLocation(lab?.id as string))?.parentLocationId).toBe(site?.id);
  const listed = await app.listLocations(organizationId);
  expect(listed.map((l) => l.id)).toEqual(expect.arrayContaining([site?.id, lab?.id]));

  // A name alone keeps the parent; an empty parent id moves the location to the top level.
  expect(await app.updateLocation(lab?.id as string, 'workshop')).toMatchObject({ name: 'workshop', parentLocationId: site?.id });
  expect(await app.updateLocation(lab?.id as string, undefined, '')).toMatchObject({ name: 'workshop', parentLocationId: '' });
  expect(await app.updateLocation(site?.id as string, undefined, lab?.id)).toMatchObject({ name: 'site', parentLocationId: lab?.id });

  await app.deleteLocation(site?.id as string);
  await app.deleteLocation(lab?.id as string);
  expect(await statusOf(app.getLocation(lab?.id as string))).toMatchObject({ code: sdk.Code.NotFound });
});

test('a location holding a machine or another location is not deleted; a location cannot sit inside itself', async () => {
  const app = viam.appClient;
  const { organizationId } = fx.emulator.credentials;
  const outer = (await app.createLocation(organizationId, 'outer'))?.id as string;
  const inner = (await app.createLocation(organizationId, 'inner', outer))?.id as string;
  const robotId = await app.newRobot(inner, 'rover');

  const holdsMachine = await statusOf(app.deleteLocation(inner));
  expect(holdsMachine).toMatchObject({ code: sdk.Code.FailedPrecondition });
  expect((holdsMachine as { message: string }).message).toContain(`rover (${robotId})`);
  const holdsLocation = await statusOf(app.deleteLocation(outer));
  expect(holdsLocation).toMatchObject({ code: sdk.Code.FailedPrecondition });
  expect((holdsLocation as { message: string }).message).toContain(`inner (${inner})`);

  expect(await statusOf(app.updateLocation(outer, undefined, inner))).toMatchObject({ code: sdk.Code.InvalidArgument });
  expect(await statusOf(app.updateLocation(outer, undefined, outer))).toMatchObject({ code: sdk.Code.InvalidArgument });
  expect(await statusOf(app.createLocation(organizationId, 'stray', 'no-such-location'))).toMatchObject({ code: sdk.Code.InvalidArgument });
  expect(await statusOf(app.updateLocation(outer, ''))).toMatchObject({ code: sdk.Code.InvalidArgument });

  await app.deleteRobot(robotId);
  await app.deleteLocation(inner);
  await app.deleteLocation(outer);
  expect((await app.listLocations(organizationId)).map((l) => l.id)).not.toContain(outer);
});
