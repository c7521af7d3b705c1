/**
 * Simulated machines run their resolved config: a part config importing a fragment (stored
 * through UpdateRobotPart with variables, a prefix and fragment_mods) runs the fragment's
 * modules and resources, and follows a new revision or a moved tag at its next check-in.
 */
import { Code, ConnectError, createClient, type Client } from '@connectrpc/connect';
import { loadSdk, type Sdk } from '../../src/api/sdk';
import { createServiceClient, type ServiceClient } from '../../src/api/client';
import { loadServices, type AppServiceType, type RobotStatusServiceType } from '../../src/api/services';
import type { MachineStatusReply } from '../../src/api/generated/viam/robot/v1/machine_status_pb';
import { useEmulator } from './fixture';
import { clientOf, newMachine, tokenFor, transport, waitUntil } from './helpers';

const fx = useEmulator({ simulation: { simulate: true, checkInIntervalMs: 40, moduleStartMs: 0, resourceConfigureMs: 0 } });

let sdk: Sdk;
let ours: ServiceClient;
let app: Client<AppServiceType>;
let robot: (host: string) => Client<RobotStatusServiceType>;

beforeAll(async () => {
  sdk = await loadSdk();
  const services = await loadServices();
  const { apiKeyId, apiKey } = fx.emulator.credentials;
  ours = await createServiceClient({
    serviceHost: fx.emulator.url,
    credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey },
  });
  app = await clientOf(fx.emulator, services.app);
  const token = await tokenFor(fx.emulator.url, apiKeyId, apiKey);
  robot = (host) =>
    createClient(services.robotStatus, transport(fx.emulator.url, 'grpc', { authorization: `Bearer ${token}`, 'rpc-host': host }));
});
afterAll(async () => {
  await ours?.close();
});

async function statusOf(host: string): Promise<MachineStatusReply | undefined> {
  try {
    return await robot(host).getMachineStatus({});
  } catch (err) {
    if (err instanceof ConnectError && err.code === Code.Unavailable) return undefined;
    throw err;
  }
}

/** Resource names ready at the config revision the machine runs, and its module names. */
function running(s: MachineStatusReply | undefined): { revision: string; resources: string[]; modules: string[] } {
  const revision = s?.config?.revision ?? '';
  return {
    revision,
    resources: (s?.resources ?? [])
      .filter((r) => r.state === 3 && r.revision === revision)
      .map((r) => r.name?.name ?? '')
      .sort(),
    modules: (s?.modules ?? [])
      .filter((m) => m.state === 3)
      .map((m) => m.moduleName)
      .sort(),
  };
}

const board = {
  name: 'board',
  api: 'rdk:component:board',
  model: 'acme:sensors:pi-board',
  attributes: { pin: { $variable: { name: 'pin' } } },
};
const sensor = { name: 'range', api: 'rdk:component:sensor', model: 'acme:sensors:hc-sr04', depends_on: ['board'] };
const sensorsModule = { type: 'registry', name: 'sensors', module_id: 'acme:sensors', version: '~1.2' };

test('a machine runs the fragment it imports, with its prefix and mods, and follows new revisions and tags', async () => {
  const { organizationId, locationId } = fx.emulator.credentials;
  const rig = await ours.appClient.createFragment(organizationId, 'sensor-rig', { components: [board], modules: [sensorsModule] });
  await ours.appClient.setFragmentTag(rig.id, 'stable', '1');
  const m = await newMachine(app, locationId, 'picker');
  // Stored through the SDK's UpdateRobotPart, as any other config.
  // Its own camera comes from the fragment's module and depends on the fragment's board: checked as resolved.
  const config = {
    components: [{ name: 'own-cam', api: 'rdk:component:camera', model: 'acme:sensors:multi-cam', depends_on: ['main-board'] }],
    fragments: [{ id: rig.id, version: 'stable', prefix: 'front', variables: { pin: '11' } }],
    fragment_mods: [{ fragment_id: rig.id, mods: [{ $set: { 'components.front-board.name': 'main-board' } }] }],
  };
  const viam = await sdk.createViamClient({
    serviceHost: fx.emulator.url,
    credentials: { type: 'api-key', authEntity: fx.emulator.credentials.apiKeyId, payload: fx.emulator.credentials.apiKey },
  });
  await viam.appClient.updateRobotPart(m.partId, m.partName, sdk.Struct.fromJson(config));

  const first = await waitUntil(
    'the fragment running',
    () => statusOf(m.partId),
    (s) => running(s).resources.length === 2 && running(s).modules.length === 1,
  );
  expect(running(first)).toMatchObject({ resources: ['main-board', 'own-cam'], modules: ['sensors'] });
  expect(running(first).revision).toContain(`+${rig.id}@1`);

  // A new revision does not reach a machine that follows the tag until the tag moves.
  await ours.appClient.updateFragment(rig.id, 'sensor-rig', { components: [board, sensor], modules: [sensorsModule] });
  const resolved = await ours.appClient.listMachineFragments(m.robotId);
  expect(resolved.resolved.map((r) => r.revision)).toEqual(['1']);
  await ours.appClient.setFragmentTag(rig.id, 'stable', '2');
  // The new sensor depends on the fragment's board by its prefixed name, which the machine's mod renamed:
  // it fails alone, as viam-server fails a resource whose dependency is missing, and the rest runs.
  const failedAlone = (s: MachineStatusReply | undefined) =>
    (s?.resources ?? []).find((r) => r.name?.name === 'front-range' && r.state === 5);
  const second = await waitUntil(
    'the tag moved',
    () => statusOf(m.partId),
    (s) => running(s).revision.includes(`+${rig.id}@2`) && running(s).resources.length === 2 && failedAlone(s) !== undefined,
  );
  expect(running(second)).toMatchObject({ resources: ['main-board', 'own-cam'], modules: ['sensors'] });
  expect(failedAlone(second)?.error).toContain('dependency "front-board" not found');
  // The part keeps its config as written: fragments and mods are resolved for the machine, never stored resolved.
  const parts = await viam.appClient.getRobotParts(m.robotId);
  expect(parts[0]?.robotConfig?.toJson()).toEqual(config);

  // A dependency on a name no resolved entry has is stored, as the service stores it: that resource fails alone.
  const missing = { ...config, components: [{ ...config.components[0], depends_on: ['front-board'] }] };
  await viam.appClient.updateRobotPart(m.partId, m.partName, sdk.Struct.fromJson(missing));
  const camFails = (s: MachineStatusReply | undefined) => (s?.resources ?? []).find((r) => r.name?.name === 'own-cam' && r.state === 5);
  const third = await waitUntil(
    'the camera failing alone',
    () => statusOf(m.partId),
    (s) => camFails(s) !== undefined && running(s).resources.includes('main-board'),
  );
  expect(camFails(third)?.error).toContain('front-board');
});
