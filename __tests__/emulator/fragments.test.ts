/**
 * Fragments on the emulator: the official SDK's fragment methods, unchanged, and fleetform's
 * client for the calls the SDK does not wrap: revisions per save, versions (revision or tag),
 * the last_known_update guard, tags and their name rules, history, usage, deletion while in
 * use, and the resolution of nested and machine fragments with their errors.
 */
import { loadSdk, type Sdk } from '../../src/api/sdk';
import { createServiceClient, ServiceError, type ServiceClient } from '../../src/api/client';
import { loadServices, type AppServiceType } from '../../src/api/services';
import type { Client } from '@connectrpc/connect';
import { useEmulator } from './fixture';
import { clientOf, newMachine } from './helpers';
import { EmulatorService } from '../../src/api/emulator-control';

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

async function statusOf(p: Promise<unknown>): Promise<{ code: string; message: string } | 'ok'> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    if (err instanceof sdk.ConnectError) return { code: sdk.Code[err.code] as string, message: err.rawMessage };
    if (err instanceof ServiceError) return { code: err.code, message: err.message };
    throw err;
  }
}

const camera = {
  name: 'cam',
  api: 'rdk:component:camera',
  model: 'acme:sensors:multi-cam',
  attributes: { fps: { $variable: { name: 'fps' } } },
};
const sensorsModule = { type: 'registry', name: 'sensors', module_id: 'acme:sensors', version: '~1.2' };

async function machineImporting(name: string, config: Record<string, unknown>): Promise<{ robotId: string; partId: string }> {
  const m = await newMachine(app, fx.emulator.credentials.locationId, name);
  await ours.appClient.updateMachinePart(m.partId, m.partName, config);
  return m;
}

test('the SDK creates, reads, lists, updates and deletes a fragment; every save is a new revision', async () => {
  const { organizationId } = fx.emulator.credentials;
  const created = await viam.appClient.createFragment(organizationId, 'sdk-rig', sdk.Struct.fromJson({ components: [camera] }));
  expect(created).toMatchObject({ name: 'sdk-rig', organizationOwner: organizationId, revision: '1', visibility: 1 });
  expect(created?.fragment?.toJson()).toEqual({ components: [camera] });
  const id = created?.id as string;

  const updated = await viam.appClient.updateFragment(
    id,
    'sdk-rig-2',
    sdk.Struct.fromJson({ components: [camera], modules: [sensorsModule] }),
  );
  expect(updated).toMatchObject({ name: 'sdk-rig-2', revision: '2' });
  const read = await viam.appClient.getFragment(id);
  expect(read).toMatchObject({ id, name: 'sdk-rig-2', revision: '2', organizationName: 'Acme Robotics' });
  expect(read?.fragment?.toJson()).toEqual({ components: [camera], modules: [sensorsModule] });

  // The SDK's default asks for public fragments too: the organization's own are listed either way.
  expect((await viam.appClient.listFragments(organizationId)).map((f) => f.id)).toContain(id);
  expect((await viam.appClient.listFragments(organizationId, false)).map((f) => f.id)).toContain(id);
  const publicOnly = await viam.appClient.listFragments(organizationId, false, [sdk.appApi.FragmentVisibility.PUBLIC]);
  expect(publicOnly.map((f) => f.id)).not.toContain(id);

  await viam.appClient.deleteFragment(id);
  expect(await statusOf(viam.appClient.getFragment(id))).toMatchObject({ code: 'NotFound' });
});

test('versions: a revision or a tag reads the fragment as it was then; tags follow the name rules', async () => {
  const { organizationId } = fx.emulator.credentials;
  const c = ours.appClient;
  const f = await c.createFragment(organizationId, 'tagged', { components: [camera] });
  await c.updateFragment(f.id, 'tagged', { components: [camera], modules: [sensorsModule] });
  expect(await c.setFragmentTag(f.id, 'stable', '1')).toEqual([{ tag: 'stable', revision: '1' }]);
  expect(await c.setFragmentTag(f.id, 'dev_2-x', '2')).toEqual([
    { tag: 'dev_2-x', revision: '2' },
    { tag: 'stable', revision: '1' },
  ]);

  const atTag = await c.getFragment(f.id, 'stable');
  expect(atTag.fragment).toMatchObject({ revision: '1', config: { components: [camera] } });
  expect((await c.getFragment(f.id, '2')).fragment.config).toEqual({ components: [camera], modules: [sensorsModule] });
  expect((await c.getFragment(f.id)).revisions.map((r) => r.revision)).toEqual(['2', '1']);
  expect(await statusOf(c.getFragment(f.id, 'beta'))).toMatchObject({ code: 'NOT_FOUND' });
  expect(await statusOf(c.getFragment(f.id, '3'))).toMatchObject({ code: 'NOT_FOUND' });

  for (const bad of ['Stable', '1st', 'v2', 'has space', 'x'.repeat(61), '']) {
    expect(await statusOf(c.setFragmentTag(f.id, bad, '1'))).toMatchObject({ code: 'INVALID_ARGUMENT' });
  }
  expect(await c.setFragmentTag(f.id, 'x'.repeat(60), '1')).toHaveLength(3);
  expect(await statusOf(c.setFragmentTag(f.id, 'later', '9'))).toMatchObject({ code: 'NOT_FOUND' });
  expect(await c.deleteFragmentTag(f.id, 'x'.repeat(60))).toHaveLength(2);
  expect(await statusOf(c.deleteFragmentTag(f.id, 'nope'))).toMatchObject({ code: 'NOT_FOUND' });
});

test('a save with an old last_known_update is refused and saves nothing; history lists every save', async () => {
  const { organizationId } = fx.emulator.credentials;
  const c = ours.appClient;
  const f = await c.createFragment(organizationId, 'guarded', { modules: [sensorsModule] });
  const second = await c.updateFragment(
    f.id,
    'guarded',
    { modules: [{ ...sensorsModule, version: '1.2.5' }] },
    { lastKnownUpdate: f.lastUpdated as Date },
  );
  expect(second.revision).toBe('2');
  const stale = await statusOf(c.updateFragment(f.id, 'guarded', { modules: [] }, { lastKnownUpdate: f.lastUpdated as Date }));
  expect(stale).toMatchObject({ code: 'FAILED_PRECONDITION' });
  expect((stale as { message: string }).message).toMatch(/last_known_update/);
  expect((await c.getFragment(f.id)).fragment.revision).toBe('2');

  await c.updateFragment(f.id, 'guarded-3', { modules: [] });
  const first = await c.getFragmentHistory(f.id, { pageLimit: 2 });
  expect(first.history.map((h) => h.revision)).toEqual(['3', '2']);
  expect(first.history[0]?.config).toEqual({ modules: [] });
  expect(first.history[0]?.before).toMatchObject({
    revision: '2',
    name: 'guarded',
    config: { modules: [{ ...sensorsModule, version: '1.2.5' }] },
  });
  expect(first.history[0]?.editedBy).toBe(fx.emulator.credentials.apiKeyId);
  const rest = await c.getFragmentHistory(f.id, { pageToken: first.nextPageToken, pageLimit: 2 });
  expect(rest.history.map((h) => h.revision)).toEqual(['1']);
  expect(rest.history[0]?.before).toBeUndefined();
  expect(rest.nextPageToken).toBe('');
});

test('usage counts machines per version, nested imports included; a fragment in use is not deleted', async () => {
  const { organizationId } = fx.emulator.credentials;
  const c = ours.appClient;
  const leaf = await c.createFragment(organizationId, 'leaf', { modules: [sensorsModule] });
  await c.setFragmentTag(leaf.id, 'stable', '1');
  const holder = await c.createFragment(organizationId, 'holder', { fragments: [{ id: leaf.id, version: 'stable' }] });
  const a = await machineImporting('usage-a', { fragments: [leaf.id] });
  await machineImporting('usage-b', { fragments: [{ id: leaf.id, version: 'stable' }] });
  await machineImporting('usage-c', { fragments: [{ id: holder.id }] });

  const usage = await c.getFragmentUsage(leaf.id);
  expect(usage.map((u) => [u.version, u.machines]).sort()).toEqual(
    [
      ['stable', 2],
      [undefined, 1],
    ].sort(),
  );
  const detail = await c.getFragment(leaf.id);
  expect(detail.usage).toMatchObject({ machines: 3, organizations: 1, machinesInOwnOrganization: 3 });
  expect(detail.fragment.machineCount).toBe(3);

  const refused = await statusOf(c.deleteFragment(leaf.id));
  expect(refused).toMatchObject({ code: 'FAILED_PRECONDITION' });
  expect((refused as { message: string }).message).toContain(`usage-a (${a.robotId})`);
  expect((refused as { message: string }).message).toContain(`fragment holder (${holder.id})`);
  expect((await c.getFragment(leaf.id)).fragment.id).toBe(leaf.id);
});

test('machine fragments: resolved per import, with variables and prefixes; nesting errors are named', async () => {
  const { organizationId } = fx.emulator.credentials;
  const c = ours.appClient;
  const rig = await c.createFragment(organizationId, 'rig', { components: [camera], modules: [sensorsModule] });
  const m = await machineImporting('picker', { fragments: [{ id: rig.id, prefix: 'front', variables: { fps: 15 } }] });

  const viaSdk = await viam.appClient.listMachineFragments(m.robotId);
  expect(viaSdk.map((f) => f.id)).toEqual([rig.id]);
  const resolved = await c.listMachineFragments(m.robotId);
  expect(resolved.resolved).toEqual([
    {
      fragmentId: rig.id,
      revision: '1',
      config: { components: [{ ...camera, name: 'front-cam', attributes: { fps: 15 } }], modules: [sensorsModule] },
      error: undefined,
    },
  ]);

  // A cycle, a child that does not exist and nesting past five levels: each import says why it brings nothing.
  const loop = await c.createFragment(organizationId, 'loop', {});
  await c.updateFragment(loop.id, 'loop', { fragments: [loop.id] });
  const dangling = await c.createFragment(organizationId, 'dangling', { fragments: ['no-such-fragment'] });
  let chain = await c.createFragment(organizationId, 'level-6', {});
  for (let level = 5; level >= 1; level--) chain = await c.createFragment(organizationId, `level-${level}`, { fragments: [chain.id] });
  const errors = await c.listMachineFragments(m.robotId, [{ fragmentId: loop.id }, { fragmentId: dangling.id }, { fragmentId: chain.id }]);
  const kinds = errors.resolved.flatMap((r) => (r.error ? [r.error.kind] : []));
  expect(kinds).toEqual(['cycle_detected', 'child_id_invalid', 'nesting_limit_exceeded']);
  expect(errors.resolved.find((r) => r.error?.kind === 'child_id_invalid')?.error?.fragmentId).toBe('no-such-fragment');

  const nested = await c.listNestedFragments(chain.id);
  expect(nested.fragments.map((f) => f.name)).toEqual(['level-2', 'level-3', 'level-4', 'level-5']);
  expect(nested.resolved.map((r) => r.error?.kind)).toEqual([
    undefined,
    undefined,
    undefined,
    undefined,
    undefined,
    'nesting_limit_exceeded',
  ]);

  // The SDK's additional fragment ids resolve along with the machine's own.
  const withExtra = await viam.appClient.listMachineFragments(m.robotId, [loop.id]);
  expect(withExtra.map((f) => f.id)).toEqual([rig.id, loop.id]);
});

test('an unknown fragment or organization and a fragment without a name are refused', async () => {
  const c = ours.appClient;
  expect(await statusOf(c.getFragment('no-such-fragment'))).toMatchObject({ code: 'NOT_FOUND' });
  expect(await statusOf(c.listFragments('no-such-org'))).toMatchObject({ code: 'PERMISSION_DENIED' });
  expect(await statusOf(c.createFragment(fx.emulator.credentials.organizationId, '  ', {}))).toMatchObject({ code: 'INVALID_ARGUMENT' });
});

test('another organization: its public fragments are listed and imported, its private ones are NO_ACCESS and hidden', async () => {
  const controls = await clientOf(fx.emulator, EmulatorService);
  const other = await controls.createOrganization({ name: 'Other Org', publicNamespace: 'other-org' });
  const theirs = await createServiceClient({
    serviceHost: fx.emulator.url,
    credentials: { type: 'api-key', authEntity: other.apiKeyId, payload: other.apiKey },
  });
  try {
    const shared = await theirs.appClient.createFragment(
      other.organizationId,
      'shared',
      { components: [{ name: 'nav', api: 'rdk:service:navigation', model: 'rdk:builtin:builtin' }] },
      'public',
    );
    const secret = await theirs.appClient.createFragment(other.organizationId, 'secret', {});
    const { organizationId } = fx.emulator.credentials;

    expect((await ours.appClient.listFragments(organizationId, { showPublic: true })).map((f) => f.id)).toContain(shared.id);
    expect((await ours.appClient.listFragments(organizationId)).map((f) => f.id)).not.toContain(shared.id);
    expect((await ours.appClient.getFragment(shared.id)).fragment).toMatchObject({
      name: 'shared',
      visibility: 'public',
      organizationName: 'Other Org',
    });
    expect(await statusOf(ours.appClient.getFragment(secret.id))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await statusOf(ours.appClient.updateFragment(shared.id, 'mine', {}))).toMatchObject({ code: 'PERMISSION_DENIED' });

    const m = await machineImporting('borrower', { fragments: [shared.id, secret.id] });
    const resolved = await ours.appClient.listMachineFragments(m.robotId);
    expect(resolved.resolved.map((r) => [r.fragmentId, r.error?.kind])).toEqual([
      [shared.id, undefined],
      [secret.id, 'no_access'],
    ]);
    // The owner sees the other organization's machine among the public fragment's users.
    expect((await theirs.appClient.getFragment(shared.id)).usage).toMatchObject({
      machines: 1,
      organizations: 1,
      machinesInOwnOrganization: 0,
    });
  } finally {
    await theirs.close();
  }
});
