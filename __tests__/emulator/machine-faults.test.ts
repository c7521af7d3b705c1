/** Machine fault specs as users write them, and how a share of machines is picked. */
import { InputError } from '../../src/domain/errors';
import { MachineFaults, machineFaultsFromEnv, parseMachineFault } from '../../src/emulator/sim/machine-faults';
import { resolveSimulation } from '../../src/emulator/sim/options';

function errorOf(run: () => unknown): InputError {
  try {
    run();
  } catch (err) {
    if (err instanceof InputError) return err;
    throw err;
  }
  throw new Error('expected an InputError');
}

test('the three forms, with and without a version or a share', () => {
  expect(parseMachineFault('module=acme:sensors@1.3.0:crash', 'f')).toEqual({
    kind: 'crash',
    moduleId: 'acme:sensors',
    version: '1.3.0',
    percent: 100,
    text: 'module=acme:sensors@1.3.0:crash',
  });
  expect(parseMachineFault('module=acme:sensors:crash:30%', 'f')).toMatchObject({ kind: 'crash', moduleId: 'acme:sensors', percent: 30 });
  expect(parseMachineFault('module=acme:sensors:crash', 'f')).not.toHaveProperty('version');
  expect(parseMachineFault('model=acme:sensors:hc-sr04:unhealthy', 'f')).toMatchObject({
    kind: 'unhealthy',
    model: 'acme:sensors:hc-sr04',
    percent: 100,
  });
  expect(parseMachineFault(' machine=picker-3:offline:5% ', 'f')).toMatchObject({ kind: 'offline', machine: 'picker-3', percent: 5 });
});

test.each([
  ['module=acme:sensors@1.3.0:crsh', /expected the effect "crash"/, /module=acme:sensors@1.3.0:crash/],
  [
    'modul=acme:sensors:crash',
    /unknown target "modul"/,
    /start with module=, model=, machine=, package=, maintenance=, remote=, job=, signal= or logs=/,
  ],
  ['module=sensors:crash', /not a module id/, /namespace:name/],
  ['model=acme:hc-sr04:unhealthy', /not a model triplet/, /namespace:family:name/],
  ['machine=picker-3:down', /expected the effect "offline"/, /machine=picker-3:offline/],
  ['machine=picker-3:offline:0%', /not a whole percent/, /:30%/],
  ['machine=:offline', /the machine is missing/, /name the machine/],
])('%s is refused, naming the fix', (spec, why, hint) => {
  const err = errorOf(() => parseMachineFault(spec, '--machine-fault'));
  expect(err.message).toMatch(why);
  expect(err.path).toBe('--machine-fault');
  expect(err.hint).toMatch(hint);
});

test('a share hits the same machines every time, about that share of them', () => {
  const faults = new MachineFaults([
    parseMachineFault('machine=m:offline:30%', 'f'),
    parseMachineFault('module=acme:sensors:crash:30%', 'f'),
  ]);
  const ids = Array.from({ length: 1000 }, (_, i) => `machine-${i}`);
  const crashing = ids.filter((id) => faults.crashes({ machineId: id, machineName: 'x' }, 'acme:sensors', '1.0.0'));
  expect(crashing.length).toBeGreaterThan(240);
  expect(crashing.length).toBeLessThan(360);
  const again = new MachineFaults([parseMachineFault('module=acme:sensors:crash:30%', 'f')]);
  expect(ids.filter((id) => again.crashes({ machineId: id, machineName: 'x' }, 'acme:sensors', '1.0.0'))).toEqual(crashing);
  // The machine fault matches by name or id, and only the 30% it picks.
  const offline = ids.filter((id) => faults.offline({ machineId: id, machineName: 'm' }));
  expect(offline.length).toBeGreaterThan(240);
  expect(offline.length).toBeLessThan(360);
  expect(faults.offline({ machineId: 'machine-1', machineName: 'other' })).toBe(false);
});

test('a version narrows a crash to that version', () => {
  const faults = new MachineFaults([parseMachineFault('module=acme:sensors@1.3.0:crash', 'f')]);
  const m = { machineId: 'a', machineName: 'a' };
  expect(faults.crashes(m, 'acme:sensors', '1.3.0')).toBe(true);
  expect(faults.crashes(m, 'acme:sensors', '1.2.5')).toBe(false);
  expect(faults.crashes(m, 'acme:vision', '1.3.0')).toBe(false);
});

test('the variable holds comma-separated specs; a bad one names the variable', () => {
  expect(
    machineFaultsFromEnv({ FLEETFORM_EMULATOR_MACHINE_FAULT: 'machine=a:offline, model=acme:sensors:hc-sr04:unhealthy' }).map(
      (f) => f.kind,
    ),
  ).toEqual(['offline', 'unhealthy']);
  expect(errorOf(() => machineFaultsFromEnv({ FLEETFORM_EMULATOR_MACHINE_FAULT: 'machine=a' })).path).toBe(
    'FLEETFORM_EMULATOR_MACHINE_FAULT',
  );
});

test('settings: given ones first, then the variables, then the defaults', () => {
  expect(resolveSimulation({})).toMatchObject({ simulate: true, checkInIntervalMs: 5000, machineFaults: [] });
  expect(resolveSimulation({ FLEETFORM_EMULATOR_SIMULATE: '0', FLEETFORM_EMULATOR_CHECK_IN_INTERVAL: '20ms' })).toMatchObject({
    simulate: false,
    checkInIntervalMs: 20,
  });
  expect(resolveSimulation({ FLEETFORM_EMULATOR_CHECK_IN_INTERVAL: '2s' }, { checkInIntervalMs: 7 })).toMatchObject({
    checkInIntervalMs: 7,
  });
  expect(errorOf(() => resolveSimulation({ FLEETFORM_EMULATOR_CHECK_IN_INTERVAL: '0' })).path).toBe('FLEETFORM_EMULATOR_CHECK_IN_INTERVAL');
  expect(errorOf(() => resolveSimulation({ FLEETFORM_EMULATOR_SIMULATE: 'maybe' })).hint).toMatch(/0\/false\/off/);
});
