/**
 * DataService ExportTabularData on the emulator, read with the official SDK: the points a
 * simulated machine captured for one source, oldest first, within the interval asked;
 * another resource's or method's points never; bad requests refused naming the field.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import { EmulatorService } from '../../src/api/emulator-control';
import { loadDataService } from '../../src/api/data-service';
import { loadSdk, type Sdk } from '../../src/api/sdk';
import { loadServices } from '../../src/api/services';
import { useEmulator } from './fixture';
import { clientOf, newMachine } from './helpers';

const fx = useEmulator({ simulation: { simulate: true, checkInIntervalMs: 40, moduleStartMs: 0, resourceConfigureMs: 0 } });

type ViamClient = Awaited<ReturnType<Sdk['createViamClient']>>;
let sdk: Sdk;
let viam: ViamClient;
let partId: string;
const SENSOR = 'rdk:component:sensor';

const capture = (hz: number) => [
  { type: 'data_manager', attributes: { capture_methods: [{ method: 'Readings', capture_frequency_hz: hz, additional_params: {} }] } },
];

beforeAll(async () => {
  sdk = await loadSdk();
  viam = await sdk.createViamClient({
    serviceHost: fx.emulator.url,
    credentials: { type: 'api-key', authEntity: fx.emulator.credentials.apiKeyId, payload: fx.emulator.credentials.apiKey },
  });
  const app = await clientOf(fx.emulator, (await loadServices()).app);
  const made = await newMachine(app, fx.emulator.credentials.locationId, 'capturer');
  partId = made.partId;
  const config = {
    components: [
      { name: 'counter', api: SENSOR, model: 'rdk:builtin:fake', service_configs: capture(20) },
      { name: 'thermo', api: SENSOR, model: 'rdk:builtin:fake', service_configs: capture(20) },
    ],
  };
  const part = (await viam.appClient.getRobotPart(partId)).part;
  await app.updateRobotPart({ id: partId, name: part?.name ?? 'main', robotConfig: sdk.Struct.fromJson(config as never) });
  const controls = await clientOf(fx.emulator, EmulatorService);
  await controls.setSensorReading({ machine: 'capturer', sensor: 'counter', readings: sdk.Struct.fromJson({ picks_per_hour: 100 }) });
  await controls.setSensorReading({ machine: 'capturer', sensor: 'thermo', readings: sdk.Struct.fromJson({ celsius: 40 }) });
});

async function counterPoints(start?: Date, end?: Date) {
  return viam.dataClient.exportTabularData(partId, 'counter', SENSOR, 'Readings', start, end);
}

test('the points of one source, oldest first, each near the reading set, named by part, machine and source', async () => {
  let points = await counterPoints();
  while (points.length < 20) points = await counterPoints();
  const times = points.map((p) => p.timeCaptured?.getTime() ?? 0);
  expect(times).toEqual([...times].sort((a, b) => a - b));
  for (const p of points) {
    expect(p).toMatchObject({ partId, resourceName: 'counter', resourceSubtype: SENSOR, methodName: 'Readings', robotName: 'capturer' });
    const value = (p.payload as { readings: { picks_per_hour: number } }).readings.picks_per_hour;
    expect(Math.abs(value - 100)).toBeLessThanOrEqual(2);
    expect(p.payload).not.toHaveProperty('readings.celsius');
  }
});

test('the interval bounds the points: start inclusive, end exclusive', async () => {
  let points = await counterPoints();
  while (points.length < 10) points = await counterPoints();
  const times = points.map((p) => p.timeCaptured?.getTime() ?? 0);
  const start = times[2] as number;
  const end = times[7] as number;
  const within = await counterPoints(new Date(start), new Date(end));
  expect(within.map((p) => p.timeCaptured?.getTime())).toEqual(times.filter((t) => t >= start && t < end));
  expect(await counterPoints(new Date(Date.now() + 60_000), new Date(Date.now() + 120_000))).toEqual([]);
});

test('a source captured by nothing gives no point; another method of the same resource neither', async () => {
  expect(await viam.dataClient.exportTabularData(partId, 'counter', SENSOR, 'GetReadings')).toEqual([]);
  expect(await viam.dataClient.exportTabularData(partId, 'counter', 'rdk:component:camera', 'Readings')).toEqual([]);
  expect(await viam.dataClient.exportTabularData(partId, 'nothing', SENSOR, 'Readings')).toEqual([]);
});

test.each([
  [{ resourceName: 'counter', resourceSubtype: SENSOR, methodName: 'Readings' }, 'part_id'],
  [{ partIdOf: true, resourceSubtype: SENSOR, methodName: 'Readings' }, 'resource_name'],
  [{ partIdOf: true, resourceName: 'counter', methodName: 'Readings' }, 'resource_subtype'],
  [{ partIdOf: true, resourceName: 'counter', resourceSubtype: SENSOR }, 'method_name'],
  [
    {
      partIdOf: true,
      resourceName: 'counter',
      resourceSubtype: SENSOR,
      methodName: 'Readings',
      interval: { start: { seconds: 2000n, nanos: 0 }, end: { seconds: 1000n, nanos: 0 } },
    },
    'interval',
  ],
])('a request without its field (%j) is invalid_argument naming %s', async (req, field) => {
  const data = await clientOf(fx.emulator, await loadDataService());
  const { partIdOf, ...rest } = req as typeof req & { partIdOf?: boolean };
  let err: unknown;
  try {
    for await (const _ of data.exportTabularData({ ...rest, ...(partIdOf ? { partId } : {}) })) void _;
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(ConnectError);
  expect((err as ConnectError).code).toBe(Code.InvalidArgument);
  expect((err as ConnectError).rawMessage).toContain(field);
});
