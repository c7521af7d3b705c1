/** The evidence simulated machines produce: signal and logs faults as written, what they capture, and the log lines their state and faults owe. */
import { InputError } from '../../src/domain/errors';
import {
  MAX_POINTS_PER_CHECK_IN,
  RETRY_LINES_PER_MINUTE,
  captureSources,
  captureTimes,
  capturedReadings,
  linesDue,
  stateLogRates,
} from '../../src/emulator/sim/captured-data';
import { MachineFaults, parseMachineFault, type RunningVersions } from '../../src/emulator/sim/machine-faults';

const machine = { machineId: 'm-1', machineName: 'picker-1' };
const running = (version: string): RunningVersions => ({
  modules: [{ moduleId: 'acme:picker', version }],
  packages: [{ names: ['box-detector', 'org-1/box-detector'], version: '3' }],
});

test('signal= and logs= as written: a module or a package, an optional version, an optional share', () => {
  expect(parseMachineFault('signal=acme:picker@1.4.0:picks_per_hour*0.7', 'x')).toEqual({
    kind: 'signal',
    target: { module: 'acme:picker', version: '1.4.0' },
    field: 'picks_per_hour',
    factor: 0.7,
    percent: 100,
    text: 'signal=acme:picker@1.4.0:picks_per_hour*0.7',
  });
  expect(parseMachineFault('signal=box-detector:confidence*1.5:30%', 'x')).toMatchObject({
    target: { pkg: 'box-detector' },
    field: 'confidence',
    factor: 1.5,
    percent: 30,
  });
  expect(parseMachineFault('logs=acme:picker@1.4.0:error:12/min', 'x')).toMatchObject({
    kind: 'logs',
    target: { module: 'acme:picker', version: '1.4.0' },
    level: 'error',
    perMinute: 12,
  });
  expect(parseMachineFault('logs=box-detector@3:warn:0.5/min', 'x')).toMatchObject({
    target: { pkg: 'box-detector', version: '3' },
    perMinute: 0.5,
  });
});

test.each([
  ['signal=acme:picker@1.4.0:picks_per_hour', 'expected <module or package>[@version]:<field>*<factor>'],
  ['signal=acme:picker@1.4.0:picks_per_hour*-1', 'with a factor from 0'],
  ['signal=acme:picker@:picks_per_hour*0.7', 'is not a module id or a package'],
  ['signal=a:b:c@1:f*0.7', 'is not a module id or a package'],
  ['logs=acme:picker@1.4.0:fatal:12/min', 'expected <module or package>[@version]:<debug|info|warn|error>:<n>/min'],
  ['logs=acme:picker@1.4.0:error:12', '<n>/min'],
  ['logs=acme:picker@1.4.0:error:12/min:0%', 'is not a whole percent from 1 to 100'],
])('%s is refused, naming the flag and the form', (spec, why) => {
  let err: unknown;
  try {
    parseMachineFault(spec, '--machine-fault');
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(InputError);
  expect((err as InputError).message).toContain(why);
  expect((err as InputError).path).toBe('--machine-fault');
  expect((err as InputError).hint).toMatch(/write it like|\d+%/);
});

test('a signal fault scales the field on machines running that version only; several multiply', () => {
  const faults = new MachineFaults([
    parseMachineFault('signal=acme:picker@1.4.0:picks_per_hour*0.7', 'x'),
    parseMachineFault('signal=box-detector:picks_per_hour*0.5', 'x'),
  ]);
  expect(faults.signalFactor(machine, running('1.4.0'), 'picks_per_hour')).toBeCloseTo(0.35);
  expect(faults.signalFactor(machine, running('1.3.0'), 'picks_per_hour')).toBeCloseTo(0.5);
  expect(faults.signalFactor(machine, running('1.4.0'), 'temperature')).toBe(1);
  const logs = new MachineFaults([parseMachineFault('logs=acme:picker@1.4.0:error:12/min', 'x')]);
  expect(logs.logRates(machine, running('1.4.0'))).toEqual([
    { level: 'error', perMinute: 12, text: 'logs=acme:picker@1.4.0:error:12/min' },
  ]);
  expect(logs.logRates(machine, running('1.3.0'))).toEqual([]);
});

test('a share of machines: the same ones every time, about that share', () => {
  const faults = new MachineFaults([parseMachineFault('signal=acme:picker:picks_per_hour*0.7:30%', 'x')]);
  const hit = Array.from({ length: 400 }, (_, i) => ({ machineId: `m-${i}`, machineName: `p-${i}` })).filter(
    (m) => faults.signalFactor(m, running('1.4.0'), 'picks_per_hour') < 1,
  );
  expect(hit.length).toBeGreaterThan(80);
  expect(hit.length).toBeLessThan(160);
  const again = hit.filter((m) => faults.signalFactor(m, running('1.4.0'), 'picks_per_hour') < 1);
  expect(again).toEqual(hit);
});

test('capture sources: the enabled methods of the data manager service configs, with a frequency', () => {
  const capture = (methods: unknown[], type = 'data_manager') => [{ type, attributes: { capture_methods: methods } }];
  const resources = [
    { entry: { name: 'counter', service_configs: capture([{ method: 'Readings', capture_frequency_hz: 2 }]) } },
    { entry: { name: 'cam', service_configs: capture([{ method: 'GetImages', capture_frequency_hz: 1, disabled: true }]) } },
    { entry: { name: 'arm', service_configs: capture([{ method: 'EndPosition', capture_frequency_hz: 0 }]) } },
    { entry: { name: 'imu', service_configs: capture([{ method: 'Readings', capture_frequency_hz: 5 }], 'rdk:service:data_manager') } },
    { entry: { name: 'other', service_configs: capture([{ method: 'Readings', capture_frequency_hz: 5 }], 'vision') } },
  ];
  expect(captureSources(resources.map((r) => ({ kind: 'components' as const, ...r })))).toEqual([
    { resourceName: 'counter', methodName: 'Readings', hz: 2 },
    { resourceName: 'imu', methodName: 'Readings', hz: 5 },
  ]);
});

test("capture times: multiples of the period after the last check-in, at most one check-in's points", () => {
  expect(captureTimes(1000, 3000, 2)).toEqual([1500, 2000, 2500, 3000]);
  expect(captureTimes(3000, 3000, 2)).toEqual([]);
  const long = captureTimes(0, 3_600_000, 10);
  expect(long).toHaveLength(MAX_POINTS_PER_CHECK_IN);
  expect(long[long.length - 1]).toBe(3_600_000);
});

test('a captured point: each number within 2% of its value times its factor, the same for the same seed and time; other values as set', () => {
  const readings = { picks_per_hour: 100, state: 'ok' };
  const points = Array.from({ length: 200 }, (_, t) => capturedReadings(readings, 'part\0counter', t * 50, () => 0.7));
  for (const p of points) {
    expect(p.state).toBe('ok');
    expect(Math.abs((p.picks_per_hour as number) - 70)).toBeLessThanOrEqual(70 * 0.02);
  }
  expect(new Set(points.map((p) => p.picks_per_hour)).size).toBeGreaterThan(100);
  expect(capturedReadings(readings, 'part\0counter', 50, () => 0.7)).toEqual(points[1]);
});

test('log lines by rate: whole lines now, the fraction carried to the next check-in', () => {
  expect(linesDue(12, 10_000, 0)).toEqual({ lines: 2, carried: 0 });
  const first = linesDue(1, 45_000, 0);
  expect(first.lines).toBe(0);
  expect(linesDue(1, 45_000, first.carried)).toMatchObject({ lines: 1 });
});

test('a resource that failed to configure logs its failure again at each retry; a ready one logs nothing of its own', () => {
  const resource = { namespace: 'rdk', type: 'component', subtype: 'sensor', name: 'counter' };
  expect(stateLogRates([{ ...resource, error: '' }])).toEqual([]);
  expect(stateLogRates([{ ...resource, error: 'model is unhealthy' }])).toEqual([
    {
      key: 'resource\0counter',
      perMinute: RETRY_LINES_PER_MINUTE,
      level: 'error',
      logger: 'rdk.resource_manager',
      message: 'resource rdk:component:sensor/counter failed to configure: model is unhealthy',
    },
  ]);
});
