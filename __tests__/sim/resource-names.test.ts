/** A simulated machine never builds a resource whose name the config's rules refuse, nor two of one name and API, nor starts a second module of a name or id; it runs the rest. */
import { ModuleState, ResourceState } from '../../src/emulator/sim/machine-state';
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

describe('modules', () => {
  const sensor = { name: 'sonar', api: 'rdk:component:sensor', model: 'acme:distance:ultrasonic' };
  const distance = { type: 'registry', name: 'acme_distance', module_id: 'acme:distance', version: '^1' };

  test('a second module of one name is never started, and said so once; the first runs with its resources', () => {
    const config = { components: [sensor], modules: [distance, { ...distance }] };
    const { run, logs } = runStandalone(config, { maxCheckIns: 4 });
    expect(run.modules.map((m) => `${m.name} ${m.state} ${m.error}`)).toEqual([
      `acme_distance ${ModuleState.READY} `,
      `acme_distance ${ModuleState.UNHEALTHY} duplicate module name "acme_distance"`,
    ]);
    expect(run.resources.map((r) => r.state)).toEqual([ResourceState.READY]);
    expect(logs.filter((l) => l.message.includes('duplicate module name'))).toHaveLength(1);
    expect(logs.filter((l) => l.message.includes('is ready') && l.message.includes('module acme_distance'))).toHaveLength(1);
  });

  test('a second entry of one module id is never started', () => {
    const { run } = runStandalone({ modules: [distance, { ...distance, name: 'acme_distance_2' }] });
    expect(run.modules.map((m) => `${m.name} ${m.state} ${m.error}`)).toEqual([
      `acme_distance ${ModuleState.READY} `,
      `acme_distance_2 ${ModuleState.UNHEALTHY} module "acme:distance" is configured twice`,
    ]);
  });
});
