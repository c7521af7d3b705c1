/** Dependencies a builtin model's attributes name: built first, and a resource whose implied dependency failed or is missing fails alone. */
import { implicitDependencies } from '../../src/domain/implicit-dependencies';
import { MachineState, ResourceState } from '../../src/emulator/sim/machine-state';
import { runStandalone } from '../../src/emulator/sim/run-config';

const stateOf = (run: ReturnType<typeof runStandalone>['run']) =>
  Object.fromEntries(run.resources.map((r) => [r.name, [r.state, r.error]]));

test("the fields each builtin model reads resource names from; none for a module's model", () => {
  expect(implicitDependencies('base', 'rdk:builtin:wheeled', { left: ['m-left'], right: ['m-right', 7], width_mm: 300 })).toEqual([
    { field: 'left', name: 'm-left' },
    { field: 'right', name: 'm-right' },
  ]);
  expect(implicitDependencies('motor', 'rdk:builtin:gpio', { board: 'pi', encoder: '' })).toEqual([{ field: 'board', name: 'pi' }]);
  expect(implicitDependencies('vision', 'rdk:builtin:color_detector', { camera_name: 'cam' })).toEqual([
    { field: 'camera_name', name: 'cam' },
  ]);
  expect(implicitDependencies('base', 'acme:bases:wheeled', { left: ['m-left'] })).toEqual([]);
  expect(implicitDependencies('camera', 'rdk:builtin:webcam', { source: 'x' })).toEqual([]);
});

const rover = (extra: Record<string, unknown>[] = []) => ({
  components: [
    // Written before what it names: it is still built after them.
    {
      name: 'base',
      type: 'base',
      model: 'wheeled',
      attributes: { left: ['left'], right: ['right'], width_mm: 300, wheel_circumference_mm: 200 },
    },
    { name: 'left', type: 'motor', model: 'gpio', attributes: { board: 'pi', pins: { pwm: '12' } } },
    { name: 'right', type: 'motor', model: 'gpio', attributes: { board: 'pi', pins: { pwm: '13' } } },
    { name: 'pi', type: 'board', model: 'fake' },
    { name: 'cam', type: 'camera', model: 'webcam' },
    ...extra,
  ],
  services: [{ name: 'detector', type: 'vision', model: 'color_detector', attributes: { camera_name: 'cam', detect_color: '#ff0000' } }],
});

test('a builtin resource is built after the resources its attributes name, written in any order: all ready', () => {
  const { run, logs } = runStandalone(rover(), { maxCheckIns: 1 });
  expect(run.state).toBe(MachineState.RUNNING);
  expect(Object.values(stateOf(run)).every(([state]) => state === ResourceState.READY)).toBe(true);
  const ready = logs.filter((l) => l.message.endsWith('is ready')).map((l) => /\/(\S+) \(/.exec(l.message)?.[1]);
  expect(ready.indexOf('pi')).toBeLessThan(ready.indexOf('left'));
  expect(ready.indexOf('left')).toBeLessThan(ready.indexOf('base'));
  expect(ready.indexOf('right')).toBeLessThan(ready.indexOf('base'));
});

test('an implied dependency that is missing or failed fails that resource alone, naming the field; the rest runs', () => {
  const config = rover([{ name: 'arm', type: 'arm', model: 'fake' }]);
  const board = config.components.find((c) => c.name === 'pi') as { model: string };
  board.model = 'no-such-board';
  const right = config.components.find((c) => c.name === 'right') as { attributes: Record<string, unknown> };
  right.attributes = { board: 'pi-2' };
  const { run } = runStandalone(config);
  const s = stateOf(run);
  expect(s.pi).toEqual([
    ResourceState.UNHEALTHY,
    'unknown resource type: API "rdk:component:board" with model "rdk:builtin:no-such-board" not registered',
  ]);
  expect(s.left?.[0]).toBe(ResourceState.UNHEALTHY);
  expect(s.left?.[1]).toMatch(/^dependency "pi" \(named by attributes\.board\) is not available: unknown resource type/);
  expect(s.right).toEqual([
    ResourceState.UNHEALTHY,
    'dependency "pi-2" (named by attributes.board) not found: no resource or remote resource of that name',
  ]);
  expect(s.base?.[1]).toMatch(/^dependency "left" \(named by attributes\.left\) is not available: dependency "pi"/);
  expect(s.cam).toEqual([ResourceState.READY, '']);
  expect(s.detector).toEqual([ResourceState.READY, '']);
  expect(s.arm).toEqual([ResourceState.READY, '']);
});

test("an implied dependency on a remote's resource is met while the remote is reached", () => {
  const config = {
    remotes: [{ name: 'cell', address: 'cell.local:8080' }],
    services: [{ name: 'detector', type: 'vision', model: 'color_detector', attributes: { camera_name: 'cell:cam' } }],
  };
  const reached = runStandalone(config, {
    remoteResources: { 'cell.local:8080': [{ namespace: 'rdk', type: 'component', subtype: 'camera', name: 'cam' }] },
  });
  expect(stateOf(reached.run).detector).toEqual([ResourceState.READY, '']);
  const cut = runStandalone(config);
  expect(stateOf(cut.run).detector?.[1]).toBe(
    'dependency "cell:cam" (named by attributes.camera_name) not found: no resource or remote resource of that name',
  );
});
