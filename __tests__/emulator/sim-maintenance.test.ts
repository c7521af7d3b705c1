/**
 * The maintenance window on simulated machines, end to end: the sensor's reading set as a
 * machine fault through the control service holds a new config; the machine's log says so;
 * the health gate reads "held by maintenance" (pending, not unhealthy), fails naming it at its
 * timeout, and passes once the window opens. Remotes between simulated machines by address.
 */
import { Struct, type JsonObject } from '@bufbuild/protobuf';
import type { Client } from '@connectrpc/connect';
import { EmulatorService } from '../../src/api/emulator-control';
import { createServiceClient, type ServiceClient } from '../../src/api/client';
import { loadServices, type AppServiceType } from '../../src/api/services';
import { serviceStatusSource } from '../../src/engine/health/service-status-source';
import { HealthGateError, waitHealthy } from '../../src/engine/health/wait-healthy';
import { machineHealth } from '../../src/engine/kinds/machine-health';
import { useEmulator } from './fixture';
import { clientOf, newMachine, waitUntil } from './helpers';

const fx = useEmulator({
  simulation: { simulate: true, checkInIntervalMs: 40, moduleStartMs: 0, resourceConfigureMs: 0, machineFaults: [] },
});

let app: Client<AppServiceType>;
let controls: Client<typeof EmulatorService>;
let client: ServiceClient;

beforeAll(async () => {
  app = await clientOf(fx.emulator, (await loadServices()).app);
  controls = await clientOf(fx.emulator, EmulatorService);
  client = await createServiceClient({
    serviceHost: fx.emulator.url,
    credentials: { type: 'api-key', authEntity: fx.emulator.credentials.apiKeyId, payload: fx.emulator.credentials.apiKey },
  });
});

afterEach(async () => {
  await controls.setMachineFaults({ specs: [] });
});

const sensorsModule = { type: 'registry', name: 'sensors', module_id: 'acme:sensors', version: '~1.2' };
const gated = (boards: number) => ({
  components: [
    { name: 'gate', api: 'rdk:component:sensor', model: 'acme:sensors:pi-board' },
    ...Array.from({ length: boards }, (_, i) => ({ name: `board-${i + 1}`, api: 'rdk:component:board', model: 'acme:sensors:pi-board' })),
  ],
  modules: [sensorsModule],
  maintenance: { sensor_name: 'rdk:component:sensor/gate', maintenance_allowed_key: 'allowed' },
});

async function write(partId: string, name: string, config: Record<string, unknown>): Promise<string> {
  const { part } = await app.updateRobotPart({ id: partId, name, robotConfig: Struct.fromJson(config as never) });
  const at = part?.lastUpdated;
  if (!at) throw new Error('no lastUpdated');
  return new Date(Number(at.seconds) * 1000 + Math.floor(at.nanos / 1e6)).toISOString();
}

const gate = (timeout_ms: number) => ({ timeout_ms, settle_ms: 0 });

test('a closed window holds the new config: the gate waits "held by maintenance", fails by name at its timeout, then passes once it opens', async () => {
  const { partId, partName } = await newMachine(app, fx.emulator.credentials.locationId, 'picker-3');
  const source = await serviceStatusSource(client);
  const first = await write(partId, partName, gated(1));
  await waitHealthy(source, partId, 'picker-3', gate(10_000));

  await controls.setMachineFaults({ specs: ['maintenance=picker-3:closed'] });
  const second = await write(partId, partName, gated(2));
  const held = await waitUntil(
    'the hold logged',
    () => source.maintenanceHold?.(partId, second) ?? Promise.resolve(undefined),
    (h) => h !== undefined,
  );
  expect(held).toBe('maintenance sensor rdk:component:sensor/gate reads allowed=false');
  const reading = await source.read(partId);
  expect(reading.reachable && reading.status.revision).toBe(first);

  const failure = await waitHealthy(source, partId, 'picker-3', gate(300)).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(failure).toBeInstanceOf(HealthGateError);
  expect((failure as Error).message).toMatch(
    /^machine picker-3 did not pass its health gate: not healthy for 0 ms within 300 ms \(last: config pending, held by maintenance \(maintenance sensor rdk:component:sensor\/gate reads allowed=false\)\)/,
  );

  const [health] = await machineHealth(client, [
    {
      stack: 's',
      resources: { 'fleetform_machine.picker': { type: 'fleetform_machine', ids: { part_id: partId }, attributes: { name: 'picker-3' } } },
    } as never,
  ]);
  expect(health).toMatchObject({ health: 'held', heldByMaintenance: held, runningRevision: first, latestRevision: second });

  // The window opens while the gate waits: it passes.
  const passing = waitHealthy(source, partId, 'picker-3', gate(20_000));
  await controls.setMachineFaults({ specs: ['maintenance=picker-3:open'] });
  await passing;
  const after = await source.read(partId);
  expect(after.reachable && after.status.resources.map((r) => r.name)).toEqual(['gate', 'board-1', 'board-2']);
});

test("the sensor's readings set through the control service are the window: false holds, a missing key or a non-bool fails the read, true lets the config in", async () => {
  const { partId, partName } = await newMachine(app, fx.emulator.credentials.locationId, 'picker-5');
  const source = await serviceStatusSource(client);
  const first = await write(partId, partName, gated(0));
  await waitHealthy(source, partId, 'picker-5', gate(10_000));
  const set = (readings: Record<string, unknown>, sensor = 'gate') =>
    controls
      .setSensorReading({ machine: 'picker-5', sensor, readings: Struct.fromJson(readings as JsonObject) })
      .then((r) => r.readings?.toJson());
  expect(await set({ allowed: false, temperature: 21.5 })).toEqual({ allowed: false, temperature: 21.5 });
  const second = await write(partId, partName, gated(1));
  const holdOf = (revision: string, ok: (h: string) => boolean) =>
    waitUntil(
      'the hold logged',
      () => source.maintenanceHold?.(partId, revision) ?? Promise.resolve(undefined),
      (h) => h !== undefined && ok(h),
    );
  expect(await holdOf(second, () => true)).toBe('maintenance sensor rdk:component:sensor/gate reads allowed=false');
  // The full name of the sensor names the same one.
  await set({ temperature: 21.5 }, 'rdk:component:sensor/gate');
  expect(await holdOf(second, (h) => h !== 'maintenance sensor rdk:component:sensor/gate reads allowed=false')).toBe(
    'maintenance sensor rdk:component:sensor/gate could not be read: it has no reading at key "allowed"',
  );
  await set({ allowed: 'yes' });
  expect(await holdOf(second, (h) => h.includes('not a bool'))).toBe(
    'maintenance sensor rdk:component:sensor/gate could not be read: its reading at key "allowed" is "yes", not a bool',
  );
  const still = await source.read(partId);
  expect(still.reachable && still.status.revision).toBe(first);
  // A fault naming the machine overrides the readings.
  await controls.setMachineFaults({ specs: ['maintenance=picker-5:closed'] });
  await set({ allowed: true });
  expect(await holdOf(second, (h) => h.endsWith('reads allowed=false'))).toBe(
    'maintenance sensor rdk:component:sensor/gate reads allowed=false',
  );
  const passing = waitHealthy(source, partId, 'picker-5', gate(20_000));
  await controls.setMachineFaults({ specs: [] });
  await passing;
  // Empty readings clear what was set; an unknown machine is NOT_FOUND.
  expect(await set({})).toEqual({});
  await expect(controls.setSensorReading({ machine: 'no-such-machine', sensor: 'gate' })).rejects.toThrow(
    /no machine part of yours is named or has the id "no-such-machine"/,
  );
});

test('a sensor that errors blocks reconfiguring too, logged as an error', async () => {
  const { partId, partName } = await newMachine(app, fx.emulator.credentials.locationId, 'picker-4');
  const source = await serviceStatusSource(client);
  await write(partId, partName, gated(0));
  await waitHealthy(source, partId, 'picker-4', gate(10_000));
  await controls.setMachineFaults({ specs: ['maintenance=picker-4:error'] });
  const second = await write(partId, partName, gated(1));
  const held = await waitUntil(
    'the hold logged',
    () => source.maintenanceHold?.(partId, second) ?? Promise.resolve(undefined),
    (h) => h !== undefined,
  );
  expect(held).toMatch(/could not be read/);
  expect((await source.errorLines(partId, 1))[0]).toMatch(/rdk\.maintenance: reconfiguration blocked by maintenance/);
});

test("remotes by address: the remote machine's resources are part of this one; unreachable, only they go", async () => {
  const cell = await newMachine(app, fx.emulator.credentials.locationId, 'arm-cell');
  const user = await newMachine(app, fx.emulator.credentials.locationId, 'sorter');
  const source = await serviceStatusSource(client);
  await write(cell.partId, cell.partName, {
    components: [{ name: 'cam', api: 'rdk:component:camera', model: 'acme:sensors:pi-board' }],
    modules: [sensorsModule],
  });
  await waitHealthy(source, cell.partId, 'arm-cell', gate(10_000));
  const address = (await app.getRobotPart({ id: cell.partId })).part?.fqdn ?? '';
  await write(user.partId, user.partName, {
    remotes: [{ name: 'cell', address }],
    components: [{ name: 'board-1', api: 'rdk:component:board', model: 'acme:sensors:pi-board', depends_on: ['cell:cam'] }],
    modules: [sensorsModule],
  });
  await waitHealthy(source, user.partId, 'sorter', gate(10_000));
  const up = await source.read(user.partId);
  expect(up.reachable && up.status.resources.map((r) => [r.name, r.state])).toEqual([
    ['board-1', 'ready'],
    ['cell:cam', 'ready'],
  ]);

  await controls.setMachineFaults({ specs: ['remote=cell:unreachable'] });
  const cut = await waitUntil(
    'the remote cut',
    () => source.read(user.partId),
    (r) => r.reachable && r.status.resources.length === 1 && r.status.resources[0]?.state === 'unhealthy',
  );
  expect(cut.reachable && cut.status.resources[0]?.error).toMatch(/^dependency "cell:cam" not found/);
  expect(cut.reachable && cut.status.state).toBe('running');
  const logs = await app.getRobotPartLogs({ id: user.partId, filter: 'not reachable' });
  expect(logs.logs[0]?.message).toMatch(/^remote cell at .* is not reachable, its resources are unavailable: connection refused$/);
});

test('builtins in both written forms, an unknown model, processes and a failing job, written to the emulator: each as viam-server reports it', async () => {
  const { partId, partName } = await newMachine(app, fx.emulator.credentials.locationId, 'builtins-1');
  const source = await serviceStatusSource(client);
  await controls.setMachineFaults({ specs: ['job=read-window:fail'] });
  const revision = await write(partId, partName, {
    components: [
      { name: 'window', api: 'rdk:component:sensor', model: 'rdk:builtin:fake' },
      { name: 'cam', type: 'camera', model: 'webcam' },
      { name: 'gantry', type: 'gantry', model: 'simpleoneaxis' },
    ],
    services: [{ name: 'data', type: 'data_manager' }],
    processes: [{ id: 'p1', name: 'echo', args: ['hello'] }],
    jobs: [{ name: 'read-window', schedule: 'continuous', resource: 'window', method: 'GetReadings' }],
  });
  const up = await waitUntil(
    'the machine runs the config',
    () => source.read(partId),
    (r) => r.reachable && r.status.revision === revision && r.status.state === 'running',
  );
  expect(up.reachable && up.status.resources.map((r) => [r.api, r.name, r.state, r.error])).toEqual([
    ['rdk:component:sensor', 'window', 'ready', ''],
    ['rdk:component:camera', 'cam', 'ready', ''],
    [
      'rdk:component:gantry',
      'gantry',
      'unhealthy',
      'unknown resource type: API "rdk:component:gantry" with model "rdk:builtin:simpleoneaxis" not registered',
    ],
    ['rdk:service:data_manager', 'data', 'ready', ''],
  ]);
  const errors = await waitUntil(
    'the job failed',
    () => source.errorLines(partId, 10),
    (lines) => lines.some((l) => l.includes('job read-window failed')),
  );
  expect(
    errors.some((l) => /rdk: Processes have been deprecated and are no longer supported in viam-server versions v0\.74\.0\+/.test(l)),
  ).toBe(true);
  expect(
    errors.some((l) => l.includes('rdk.job_manager: job read-window failed: GetReadings on window: GetReadings returned an error')),
  ).toBe(true);
});
