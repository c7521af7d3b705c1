/** A simulated machine never builds a resource whose name the config's rules refuse, nor two of one name and API; it runs the rest. */
import { ResourceState } from '../../src/emulator/sim/machine-state';
import { runStandalone } from '../../src/emulator/sim/run-config';

const board = (name: string) => ({ name, api: 'rdk:component:board', model: 'rdk:builtin:fake' });

test('an invalid name fails that resource alone, with the reason the config check gives', () => {
  const { run, logs } = runStandalone({ components: [board('-front camera'), board('board-1')] });
  const byName = new Map(run.resources.map((r) => [r.name, r]));
  expect(byName.get('-front camera')).toMatchObject({ state: ResourceState.UNHEALTHY, error: 'invalid resource name "-front camera"' });
  expect(byName.get('board-1')?.state).toBe(ResourceState.READY);
  expect(logs.some((l) => l.level === 'error' && l.message.includes('/-front camera failed to configure: invalid resource name'))).toBe(
    true,
  );
});

test('two resources of one name and API both fail; the same name under another API runs', () => {
  const { run } = runStandalone({
    components: [board('pins'), board('pins'), { name: 'pins', api: 'rdk:component:sensor', model: 'rdk:builtin:fake' }],
  });
  expect(run.resources.map((r) => `${r.subtype}/${r.name} ${r.state}`)).toEqual([
    `board/pins ${ResourceState.UNHEALTHY}`,
    `board/pins ${ResourceState.UNHEALTHY}`,
    `sensor/pins ${ResourceState.READY}`,
  ]);
  expect(run.resources[0]?.error).toContain('duplicate resource name "pins" for API rdk:component:board');
});

test('a service written without a name takes its default and runs', () => {
  const { run } = runStandalone({ services: [{ api: 'rdk:service:data_manager', model: 'rdk:builtin:builtin' }] });
  expect(run.resources.map((r) => r.state)).toEqual([ResourceState.READY]);
});
