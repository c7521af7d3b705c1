/** Machines and parts: creation, listing, deletion, and part config writes with optimistic concurrency. */
import * as path from 'node:path';
import type { JsonObject } from '@bufbuild/protobuf';
import Database from 'better-sqlite3';
import type { Client } from '@connectrpc/connect';
import { loadServices, type AppServiceType, type Services } from '../../src/api/services';
import { EmulatorService } from '../../src/api/emulator-control';
import { DATABASE_FILE } from '../../src/emulator';
import { useEmulator } from './fixture';
import { clientOf, codeOf, newMachine } from './helpers';

const fx = useEmulator();
let services: Services;
let app: Client<AppServiceType>;
beforeAll(async () => {
  services = await loadServices();
  app = await clientOf(fx.emulator, services.app);
});

const struct = (json: JsonObject) => services.sdk.Struct.fromJson(json);
/** The config GetRobotPart sends as an encoded Struct (the client's descriptor leaves it encoded). */
const structOf = (part: { robotConfig?: Uint8Array } | undefined) =>
  part?.robotConfig ? services.sdk.Struct.fromBinary(part.robotConfig).toJson() : undefined;

const validConfig: JsonObject = {
  components: [
    { name: 'board1', api: 'rdk:component:board', model: 'acme:sensors:pi-board', attributes: { pins: { trigger: '7' } } },
    { name: 'sonar', api: 'rdk:component:sensor', model: 'acme:sensors:hc-sr04', depends_on: ['board1'] },
  ],
  modules: [{ type: 'registry', name: 'acme_sensors', module_id: 'acme:sensors', version: '1.2.3' }],
  // Keys fleetform does not model are kept as they are.
  agent: { version: 'stable' },
};

describe('machines', () => {
  test('NewRobot creates a machine with a main part; ListRobots and GetRobot see it', async () => {
    const { robotId, partId, partName } = await newMachine(app, fx.emulator.credentials.locationId, 'rover-a');
    expect(partName).toBe('rover-a-main');
    const { robot } = await app.getRobot({ id: robotId });
    expect(robot).toMatchObject({ id: robotId, name: 'rover-a', location: fx.emulator.credentials.locationId });
    expect(robot?.createdOn).toBeDefined();
    const { robots } = await app.listRobots({ locationId: fx.emulator.credentials.locationId });
    expect(robots.map((r) => r.id)).toContain(robotId);
    const { part } = await app.getRobotPart({ id: partId });
    expect(part).toMatchObject({ id: partId, robot: robotId, mainPart: true, locationId: fx.emulator.credentials.locationId });
    expect(structOf(part)).toEqual({});
  });

  test('a machine name is unique in its location', async () => {
    await newMachine(app, fx.emulator.credentials.locationId, 'rover-dup');
    expect(await codeOf(app.newRobot({ name: 'rover-dup', location: fx.emulator.credentials.locationId }))).toBe('AlreadyExists');
  });

  test('an unknown location is NotFound and an empty name InvalidArgument', async () => {
    expect(await codeOf(app.newRobot({ name: 'x', location: 'no-such-location' }))).toBe('NotFound');
    expect(await codeOf(app.newRobot({ name: '', location: fx.emulator.credentials.locationId }))).toBe('InvalidArgument');
  });

  test('DeleteRobot removes the machine and its parts', async () => {
    const { robotId, partId } = await newMachine(app, fx.emulator.credentials.locationId, 'rover-gone');
    await app.deleteRobot({ id: robotId });
    expect(await codeOf(app.getRobot({ id: robotId }))).toBe('NotFound');
    expect(await codeOf(app.getRobotPart({ id: partId }))).toBe('NotFound');
    expect(await codeOf(app.deleteRobot({ id: robotId }))).toBe('NotFound');
  });

  test('extra parts can be added and deleted; the main part cannot be deleted', async () => {
    const { robotId, partId } = await newMachine(app, fx.emulator.credentials.locationId, 'rover-parts');
    const { partId: second } = await app.newRobotPart({ robotId, partName: 'arm-part' });
    expect((await app.getRobotParts({ robotId })).parts.map((p) => [p.name, p.mainPart])).toEqual([
      ['rover-parts-main', true],
      ['arm-part', false],
    ]);
    expect(await codeOf(app.newRobotPart({ robotId, partName: 'arm-part' }))).toBe('AlreadyExists');
    expect(await codeOf(app.deleteRobotPart({ partId }))).toBe('FailedPrecondition');
    await app.deleteRobotPart({ partId: second });
    expect((await app.getRobotParts({ robotId })).parts).toHaveLength(1);
  });
});

describe('part config', () => {
  test('a part stored without its encoded config (before that was kept) is read the same', async () => {
    const { partId, partName } = await newMachine(app, fx.emulator.credentials.locationId, 'cfg-legacy');
    await app.updateRobotPart({ id: partId, name: partName, robotConfig: struct(validConfig) });
    const db = new Database(path.join(fx.dataDir, DATABASE_FILE));
    try {
      expect(db.prepare('UPDATE robot_parts SET config_struct = NULL WHERE id = ?').run(partId).changes).toBe(1);
    } finally {
      db.close();
    }
    const got = await app.getRobotPart({ id: partId });
    expect(structOf(got.part)).toEqual(validConfig);
    expect(JSON.parse(got.configJson)).toEqual(validConfig);
  });

  test('GetRobotPart returns the config as a Struct and as config_json, with last_updated', async () => {
    const { partId, partName } = await newMachine(app, fx.emulator.credentials.locationId, 'cfg-get');
    const before = await app.getRobotPart({ id: partId });
    const { part } = await app.updateRobotPart({ id: partId, name: partName, robotConfig: struct(validConfig) });
    expect(part?.robotConfig?.toJson()).toEqual(validConfig);
    const got = await app.getRobotPart({ id: partId });
    expect(structOf(got.part)).toEqual(validConfig);
    expect(JSON.parse(got.configJson)).toEqual(validConfig);
    const t0 = before.part?.lastUpdated?.toDate().getTime() ?? 0;
    const t1 = got.part?.lastUpdated?.toDate().getTime() ?? 0;
    expect(t1).toBeGreaterThan(t0);
  });

  test('last_known_update: a current write succeeds, a stale one fails with FailedPrecondition and changes nothing', async () => {
    const { partId, partName } = await newMachine(app, fx.emulator.credentials.locationId, 'cfg-occ');
    const first = await app.getRobotPart({ id: partId });
    const known = first.part?.lastUpdated;
    const { part: written } = await app.updateRobotPart({
      id: partId,
      name: partName,
      robotConfig: struct(validConfig),
      lastKnownUpdate: known,
    });
    expect(written?.robotConfig?.toJson()).toEqual(validConfig);

    // Someone else's write has happened since `known`: the second writer is refused.
    const stale = app.updateRobotPart({ id: partId, name: partName, robotConfig: struct({ components: [] }), lastKnownUpdate: known });
    expect(await codeOf(stale)).toBe('FailedPrecondition');
    const after = await app.getRobotPart({ id: partId });
    expect(structOf(after.part)).toEqual(validConfig);
    expect(after.part?.lastUpdated?.toDate().getTime()).toBe(written?.lastUpdated?.toDate().getTime());

    // With the current timestamp the write goes through.
    const { part: again } = await app.updateRobotPart({
      id: partId,
      name: partName,
      robotConfig: struct({ components: [] }),
      lastKnownUpdate: after.part?.lastUpdated,
    });
    expect(again?.robotConfig?.toJson()).toEqual({ components: [] });
  });

  test('without last_known_update the write overwrites', async () => {
    const { partId, partName } = await newMachine(app, fx.emulator.credentials.locationId, 'cfg-overwrite');
    await app.updateRobotPart({ id: partId, name: partName, robotConfig: struct(validConfig) });
    await app.updateRobotPart({ id: partId, name: partName, robotConfig: struct({ services: [] }) });
    expect(structOf((await app.getRobotPart({ id: partId })).part)).toEqual({ services: [] });
  });

  test('every config error at once, as InvalidArgument naming the paths; nothing changes', async () => {
    const { partId, partName } = await newMachine(app, fx.emulator.credentials.locationId, 'cfg-invalid');
    await app.updateRobotPart({ id: partId, name: partName, robotConfig: struct(validConfig) });
    const broken: JsonObject = {
      components: [
        { name: 'board1', api: 'rdk:component:board', model: 'acme:sensors:pi-board' },
        { name: 'cam', api: 'not-a-triplet', model: 'acme:sensors:multi-cam' },
      ],
      modules: [{ type: 'registry', name: 'acme_sensors', module_id: 'acme:sensors', version: 'not-a-version' }],
      network: { bind_address: 'nowhere' },
      auth: { handlers: [{ type: 'external', config: {} }] },
    };
    let message = '';
    try {
      await app.updateRobotPart({ id: partId, name: partName, robotConfig: struct(broken) });
    } catch (err) {
      message = (err as Error).message;
      expect(await codeOf(Promise.reject(err))).toBe('InvalidArgument');
    }
    expect(message).toContain('network.bind_address');
    expect(message).toContain('auth.handlers[0].type');
    // A malformed API or module version fails that resource or module alone when the machine runs: not a reason to refuse the write.
    expect(message).not.toContain('components[1].api');
    expect(message).not.toContain('modules[0].version');
    expect(structOf((await app.getRobotPart({ id: partId })).part)).toEqual(validConfig);
  });

  test('configs in every form people write are stored as sent: legacy API forms, builtin models, older module shapes, unknown keys', async () => {
    const { partId, partName } = await newMachine(app, fx.emulator.credentials.locationId, 'cfg-real-forms');
    const config: JsonObject = {
      _comment: 'written by hand',
      components: [
        { name: 'cam', type: 'camera', model: 'webcam', attributes: { video_path: 'video0' }, frame: { parent: 'world' } },
        { name: 'arm', type: 'arm', namespace: 'rdk', model: 'viam:viam:fake', depends_on: ['from-a-fragment'] },
        {
          name: 'Lidar',
          api: 'rdk:component:camera',
          model: 'fake',
          service_configs: [
            { type: 'data_manager', attributes: { capture_methods: [{ method: 'NextPointCloud', capture_frequency_hz: 0.2 }] } },
          ],
        },
      ],
      services: [{ name: 'dm', type: 'data_manager' }],
      modules: [{ name: 'old-shape', executable_path: '/opt/mod/run.sh' }],
      remotes: [{ name: 'other', address: 'other.local:8080' }],
      processes: [{ id: 'ui', name: 'python3', args: ['serve.py'] }],
      network: { bind_address: ':8080' },
      enable_web_profile: false,
      ui_folder: '/srv/ui',
    };
    await app.updateRobotPart({ id: partId, name: partName, robotConfig: struct(config) });
    expect(structOf((await app.getRobotPart({ id: partId })).part)).toEqual(config);
  });

  test('a registry module missing from the registry, or a version no release satisfies, is stored as written and runs nowhere', async () => {
    const { robotId: machineId, partId, partName } = await newMachine(app, fx.emulator.credentials.locationId, 'cfg-registry');
    const config = {
      modules: [
        { type: 'registry', name: 'ghost', module_id: 'acme:ghost', version: '1.0.0' },
        { type: 'registry', name: 'acme_sensors', module_id: 'acme:sensors', version: '~1.9' },
      ],
    };
    await app.updateRobotPart({ id: partId, name: partName, robotConfig: struct(config) });
    expect(structOf((await app.getRobotPart({ id: partId })).part)).toEqual(config);
    const controls = await clientOf(fx.emulator, EmulatorService);
    expect((await controls.listModuleCards({ machineId })).cards).toEqual([]);
  });

  test('a config without robot_config is InvalidArgument', async () => {
    const { partId, partName } = await newMachine(app, fx.emulator.credentials.locationId, 'cfg-empty');
    expect(await codeOf(app.updateRobotPart({ id: partId, name: partName }))).toBe('InvalidArgument');
  });
});
