/**
 * A machine importing fragments the stack declares is judged in code on the config it runs:
 * its own entries with what those fragments bring, as plan judges it. A fragment read from
 * the service (by id, or at a version) is judged at plan.
 */
import { Fragment, Machine, ModularResource, Module, Part } from '../../src';
import type { TerraformStack } from 'cdktf';
import { errorsOf, issueAt, newStack, warningsOf } from './helpers';

/** A fragment bringing the module acme:sensors, and a machine importing it with one sensor of its own. */
function rover(stack: TerraformStack, model: string, props: ConstructorParameters<typeof Machine>[2] = {}) {
  const rig = new Fragment(stack, 'rig', { name: 'sensor-rig' });
  new Module(rig, 'sensors', { moduleId: 'acme:sensors', version: '^1' });
  const machine = new Machine(stack, 'rover', props).useFragment(rig);
  new ModularResource(machine, 'sonar', { api: 'rdk:component:sensor', model });
  return { rig, machine };
}

describe('a machine importing a fragment of its stack', () => {
  test("its model of a module neither it nor the fragment has is an error naming the fragment's module ids, and the fix", () => {
    const { app, stack } = newStack('s');
    rover(stack, 'acme:sensorz:hc-sr04');
    expect(errorsOf(app)).toEqual(['s/rover/sonar model model-module-mismatch']);
    const issue = issueAt(app, 's/rover/sonar', 'model');
    expect(issue.message).toBe(
      'resource "sonar" will not start: model "acme:sensorz:hc-sr04" needs a module with module_id "acme:sensorz"; configured module ids: acme:sensors',
    );
    expect(issue.hint).toContain('add a module with "module_id": "acme:sensorz"');
    expect(issue.hint).toContain('acknowledged: [{ code: \'model-module-mismatch\', path: "components.sonar.model"');
  });

  test('its model of the module the fragment brings gives nothing', () => {
    const { app, stack } = newStack('s');
    rover(stack, 'acme:sensors:hc-sr04');
    expect(errorsOf(app)).toEqual([]);
    expect(warningsOf(app)).toEqual([]);
  });

  test('a nested fragment of the stack brings its module too', () => {
    const { app, stack } = newStack('s');
    const base = new Fragment(stack, 'base', { name: 'base' });
    new Module(base, 'arm', { moduleId: 'acme:arm', version: '^1' });
    const { rig, machine } = rover(stack, 'acme:sensors:hc-sr04');
    rig.useFragment(base);
    new ModularResource(machine, 'arm', { api: 'rdk:component:arm', model: 'acme:arm:six' });
    new ModularResource(machine, 'gripper', { api: 'rdk:component:gripper', model: 'acme:gripz:two' });
    expect(errorsOf(app)).toEqual(['s/rover/gripper model model-module-mismatch']);
    expect(issueAt(app, 's/rover/gripper', 'model').message).toContain('configured module ids: acme:sensors, acme:arm');
  });

  test("an entry the fragment brings that certainly fails in the machine is the machine's error, naming the fragment", () => {
    const { app, stack } = newStack('s');
    const { rig } = rover(stack, 'acme:sensors:hc-sr04');
    new ModularResource(rig, 'range', { api: 'rdk:component:sensor', model: 'acme:sensors:tof', dependsOn: ['ghost'] });
    expect(errorsOf(app)).toEqual(['s/rover components.range.depends_on[0] depends-on-missing']);
    expect(issueAt(app, 's/rover', 'components.range.depends_on[0]').message).toMatch(
      /^fragment sensor-rig: resource "range" will not start/,
    );
  });

  test('an acknowledgment makes it a warning quoting the reason; one matching nothing is a warning', () => {
    const { app, stack } = newStack('s');
    rover(stack, 'acme:sensorz:hc-sr04', {
      acknowledged: [
        { code: 'model-module-mismatch', path: 'components.sonar.model', reason: 'module renamed next week' },
        { code: 'model-module-mismatch', path: 'components.gone.model', reason: 'an old name' },
      ],
    });
    expect(errorsOf(app)).toEqual([]);
    expect(warningsOf(app)).toEqual([
      's/rover acknowledged["components.gone.model"] acknowledgment-unmatched',
      's/rover/sonar model model-module-mismatch',
    ]);
    expect(issueAt(app, 's/rover/sonar', 'model').message).toMatch(/\(acknowledged: module renamed next week\)$/);
  });

  test('a fragment read from the service, by id or at a version, is judged at plan: nothing here', () => {
    const { app, stack } = newStack('s');
    const rig = new Fragment(stack, 'rig', { name: 'sensor-rig' });
    new Module(rig, 'sensors', { moduleId: 'acme:sensors', version: '^1' });
    const byId = new Machine(stack, 'by-id').useFragment('fragment-on-the-service');
    new ModularResource(byId, 'sonar', { api: 'rdk:component:sensor', model: 'acme:sensorz:hc-sr04' });
    const pinned = new Machine(stack, 'pinned').useFragment(rig, { version: '2' });
    new ModularResource(pinned, 'sonar', { api: 'rdk:component:sensor', model: 'acme:sensorz:hc-sr04' });
    expect(errorsOf(app)).toEqual([]);
    expect(warningsOf(app)).toEqual([]);
  });
});

test('a Part importing a fragment of the stack is judged as a machine: its error, its acknowledgment a warning, one matching nothing a warning', () => {
  const { app, stack } = newStack('s');
  const rig = new Fragment(stack, 'rig', { name: 'sensor-rig' });
  new Module(rig, 'sensors', { moduleId: 'acme:sensors', version: '^1' });
  const machine = new Machine(stack, 'rover');
  const arm = new Part(machine, 'arm', {
    acknowledged: [{ code: 'depends-on-missing', path: 'components.grip.depends_on[0]', reason: 'an old name' }],
  }).useFragment(rig);
  new ModularResource(arm, 'sonar', { api: 'rdk:component:sensor', model: 'acme:sensorz:hc-sr04' });
  expect(errorsOf(app)).toEqual(['s/rover/arm/sonar model model-module-mismatch']);
  expect(warningsOf(app)).toEqual(['s/rover/arm acknowledged["components.grip.depends_on[0]"] acknowledgment-unmatched']);
  arm.acknowledge({ code: 'model-module-mismatch', path: 'components.sonar.model', reason: 'module renamed next week' });
  expect(errorsOf(app)).toEqual([]);
  expect(issueAt(app, 's/rover/arm/sonar', 'model').message).toMatch(/\(acknowledged: module renamed next week\)$/);
});
