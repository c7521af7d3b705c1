/** What a simulated machine runs from one check-in to the next (pure). */
import { checkIn, isHealthy, MachineState, ModuleState, ResourceState, type FetchedConfig } from '../../src/emulator/sim/machine-state';

const timings = { moduleStartMs: 1000, resourceConfigureMs: 500 };
const healthy = { crashes: () => false, unhealthy: () => false };

function config(revision: string, version: string, extra: Record<string, unknown> = {}): FetchedConfig {
  return {
    revision,
    modules: [{ name: 'sensors', moduleId: 'acme:sensors', version }],
    resources: [
      { kind: 'components', entry: { name: 'board1', api: 'rdk:component:board', model: 'acme:sensors:pi-board', ...extra } },
      { kind: 'services', entry: { name: 'nav', type: 'navigation', model: 'rdk:builtin:builtin' } },
    ],
    unresolved: [],
  };
}

test('modules start and resources configure over their times, then the machine runs the revision', () => {
  const a = checkIn(undefined, config('r1', '1.2.5'), 0, timings, healthy, false);
  expect(a.run.state).toBe(MachineState.INITIALIZING);
  expect(a.run.modules[0]?.state).toBe(ModuleState.STARTING);
  expect(a.run.resources.map((r) => r.state)).toEqual([ResourceState.CONFIGURING, ResourceState.CONFIGURING]);
  expect(a.run.resources[1]).toMatchObject({ namespace: 'rdk', type: 'service', subtype: 'navigation' });
  expect(a.logs.map((l) => l.message)).toEqual(['config revision r1 received', 'starting module sensors (acme:sensors@1.2.5)']);

  // The built-in service configures on its own; the module's resource waits for the module.
  const b = checkIn(a.run, config('r1', '1.2.5'), 600, timings, healthy, false);
  expect(b.run.resources.map((r) => r.state)).toEqual([ResourceState.CONFIGURING, ResourceState.READY]);
  const c = checkIn(b.run, config('r1', '1.2.5'), 1000, timings, healthy, false);
  expect(c.run.modules[0]?.state).toBe(ModuleState.READY);
  expect(c.run.resources[0]?.state).toBe(ResourceState.CONFIGURING);
  const d = checkIn(c.run, config('r1', '1.2.5'), 1500, timings, healthy, false);
  expect(d.run.state).toBe(MachineState.RUNNING);
  expect(isHealthy(d.run, 'r1')).toBe(true);
  expect(isHealthy(d.run, 'r2')).toBe(false);

  // A new revision that changes nothing the machine runs lands at once; a changed entry reconfigures.
  const e = checkIn(d.run, config('r2', '1.2.5'), 2000, timings, healthy, false);
  expect(isHealthy(e.run, 'r2')).toBe(true);
  const f = checkIn(e.run, config('r3', '1.2.5', { attributes: { pin: 3 } }), 2100, timings, healthy, false);
  expect(f.run.resources[0]?.state).toBe(ResourceState.CONFIGURING);
  expect(isHealthy(checkIn(f.run, config('r3', '1.2.5', { attributes: { pin: 3 } }), 2600, timings, healthy, false).run, 'r3')).toBe(true);
});

test('a crashing module is restarted at every check-in; its resources are unhealthy; a restart request starts it all again', () => {
  const crash = { crashes: (id: string, v: string) => id === 'acme:sensors' && v === '1.3.0', unhealthy: () => false };
  const zero = { moduleStartMs: 0, resourceConfigureMs: 0 };
  let step = checkIn(undefined, config('r1', '1.3.0'), 0, zero, crash, false);
  expect(step.run.modules[0]?.state).toBe(ModuleState.STARTING);
  step = checkIn(step.run, config('r1', '1.3.0'), 5, zero, crash, false);
  expect(step.run.modules[0]).toMatchObject({ state: ModuleState.UNHEALTHY, consecutiveFailures: 1 });
  step = checkIn(step.run, config('r1', '1.3.0'), 10, zero, crash, false);
  expect(step.run.modules[0]).toMatchObject({ state: ModuleState.UNHEALTHY, consecutiveFailures: 2 });
  expect(step.run.resources[0]).toMatchObject({ state: ResourceState.UNHEALTHY, error: 'module sensors is not running' });
  expect(step.logs.some((l) => l.level === 'error' && /crashed/.test(l.message))).toBe(true);
  // Moving to a version that does not crash brings it up.
  const starting = checkIn(step.run, config('r2', '1.2.5'), 20, zero, crash, false);
  expect(starting.run.modules[0]?.state).toBe(ModuleState.STARTING);
  const fixed = checkIn(starting.run, config('r2', '1.2.5'), 25, zero, crash, false);
  expect(isHealthy(fixed.run, 'r2')).toBe(true);
  const restarted = checkIn(fixed.run, config('r2', '1.2.5'), 30, timings, crash, true);
  expect(restarted.logs[0]?.message).toBe('restarting the machine server as requested');
  expect(restarted.run.modules[0]?.state).toBe(ModuleState.STARTING);
});

test('a model with no module to provide it, and an unresolved module, are errors in the logs', () => {
  const step = checkIn(
    undefined,
    { ...config('r1', '1.2.5'), modules: [], unresolved: [{ name: 'sensors', reason: 'no version admits "^9"' }] },
    0,
    timings,
    healthy,
    false,
  );
  expect(step.run.resources[0]).toMatchObject({
    state: ResourceState.UNHEALTHY,
    error: 'unknown resource type: API "rdk:component:board" with model "acme:sensors:pi-board" not registered',
  });
  expect(step.logs.filter((l) => l.level === 'error').map((l) => l.message)).toEqual([
    'module sensors cannot be started: no version admits "^9"',
    'resource rdk:component:board/board1 failed to configure: unknown resource type: API "rdk:component:board" with model "acme:sensors:pi-board" not registered',
  ]);
});

test('a placeholder no package of the machine provides fails only the resource holding it, in the machine server words', () => {
  const zero = { moduleStartMs: 0, resourceConfigureMs: 0 };
  const fetched: FetchedConfig = {
    ...config('r1', '1.2.5'),
    resources: [
      ...config('r1', '1.2.5').resources,
      {
        kind: 'services',
        entry: {
          name: 'detector',
          api: 'rdk:service:vision',
          model: 'rdk:builtin:mlmodel',
          attributes: { path: '${packages.wrench-detector}' },
        },
      },
      {
        kind: 'services',
        entry: { name: 'mapper', api: 'rdk:service:navigation', model: 'rdk:builtin:builtin', attributes: { map: '${packages.floor}' } },
      },
    ],
    packages: [{ name: 'floor', packageId: 'org-1/floor', type: 'slam_map', version: '1', totalBytes: 10 }],
  };
  let step = checkIn(undefined, fetched, 0, zero, healthy, false);
  for (let now = 5; now <= 20; now += 5) step = checkIn(step.run, fetched, now, zero, healthy, false);
  const byName = new Map(step.run.resources.map((r) => [r.name, r]));
  expect(byName.get('board1')?.state).toBe(ResourceState.READY);
  expect(byName.get('nav')?.state).toBe(ResourceState.READY);
  expect(byName.get('detector')).toMatchObject({
    state: ResourceState.UNHEALTHY,
    error: 'attributes: failed to find a package named "wrench-detector" for placeholder "packages.wrench-detector"',
  });
  expect(byName.get('mapper')).toMatchObject({
    state: ResourceState.UNHEALTHY,
    error:
      'attributes: placeholder "packages.floor" is looking for a package of type "ml_model" but a package of type "slam_map" was found. Try "packages.slam_map.floor"',
  });
});
