import { App, TerraformStack } from 'cdktf';
import { Machine, ModularResource, Module, Part } from '../../src';
import { errorsOf, issueAt, newStack, resourceOf, synth, warningsOf } from './helpers';

/** A machine whose sensor comes from module acme:distance. */
function rover(stack: TerraformStack, props: ConstructorParameters<typeof Machine>[2] = {}) {
  const machine = new Machine(stack, 'rover', props);
  const distance = new Module(machine, 'distance', { moduleId: 'acme:distance', version: '^1' });
  return { machine, distance };
}

describe('certain failures of a stack', () => {
  test.each([
    [
      'a module asking for ~2',
      (stack: TerraformStack) => {
        const machine = new Machine(stack, 'rover');
        new Module(machine, 'distance', { moduleId: 'acme:distance', version: '~2' });
      },
      's/rover/distance version module-version',
    ],
    [
      'a model naming a module the machine does not have',
      (stack: TerraformStack) => {
        const { machine } = rover(stack);
        new ModularResource(machine, 'sonar', { api: 'rdk:component:sensor', model: 'acme:sonar:ultrasonic' });
      },
      's/rover/sonar model model-module-mismatch',
    ],
    [
      'resources depending on each other in a circle',
      (stack: TerraformStack) => {
        const { machine, distance } = rover(stack);
        new ModularResource(machine, 'a', { api: 'rdk:component:sensor', model: distance.model('ultrasonic'), dependsOn: ['b'] });
        new ModularResource(machine, 'b', { api: 'rdk:component:sensor', model: distance.model('ultrasonic'), dependsOn: ['a'] });
      },
      's/rover/a dependsOn depends-on-cycle',
    ],
    [
      'a dependency nothing provides',
      (stack: TerraformStack) => {
        const { machine, distance } = rover(stack);
        new ModularResource(machine, 'a', { api: 'rdk:component:sensor', model: distance.model('ultrasonic'), dependsOn: ['ghost'] });
      },
      's/rover/a dependsOn[0] depends-on-missing',
    ],
    [
      'two modules of one name',
      (stack: TerraformStack) => {
        const { machine } = rover(stack);
        new Module(machine, 'other', { moduleId: 'acme:other', version: '^1', name: 'acme_distance' });
      },
      's/rover/other name duplicate-module-name',
    ],
  ])('%s is an error of validate and synth, and nothing is written', (_what, declare, error) => {
    const { app, stack } = newStack('s');
    declare(stack);
    expect(errorsOf(app)).toContain(error);
    expect(() => synth(stack)).toThrow(/Validation failed/);
  });

  test('an acknowledgment names the code and the path, entries by name: that error is a warning quoting the reason, in the synthesized machine too', () => {
    const { app, stack } = newStack('s');
    const { machine } = rover(stack, {
      acknowledged: [{ code: 'model-module-mismatch', path: 'components.sonar.model', reason: 'sonar module retired' }],
    });
    new ModularResource(machine, 'sonar', { api: 'rdk:component:sensor', model: 'acme:sonar:ultrasonic' });
    expect(errorsOf(app)).toEqual([]);
    expect(warningsOf(app)).toEqual(['s/rover/sonar model model-module-mismatch']);
    expect(issueAt(app, 's/rover/sonar', 'model').message).toMatch(/will not start: .*\(acknowledged: sonar module retired\)$/);
    expect(resourceOf(synth(stack), 'fleetform_machine', 'rover').acknowledged).toEqual({
      'components.sonar.model': { 'model-module-mismatch': 'sonar module retired' },
    });
  });

  test('an acknowledgment of another code or path acknowledges nothing, and one matching nothing is a warning', () => {
    const { app, stack } = newStack('s');
    const { machine } = rover(stack);
    new ModularResource(machine, 'sonar', { api: 'rdk:component:sensor', model: 'acme:sonar:ultrasonic' });
    machine.acknowledge({ code: 'model-module-mismatch', path: 'components.sonar-2.model', reason: 'an old name' });
    machine.acknowledge({ code: 'depends-on-missing', path: 'components.sonar.model', reason: 'wrong code' });
    expect(errorsOf(app)).toEqual(['s/rover/sonar model model-module-mismatch']);
    expect(warningsOf(app)).toEqual([
      's/rover acknowledged["components.sonar-2.model"] acknowledgment-unmatched',
      's/rover acknowledged["components.sonar.model"] acknowledgment-unmatched',
    ]);
  });

  test('what only may fail stays a warning: a model a local module without module_id may provide', () => {
    const { app, stack } = newStack('s');
    const machine = new Machine(stack, 'rover');
    new Module(machine, 'local', { executablePath: '/opt/sonar/run' });
    new ModularResource(machine, 'sonar', { api: 'rdk:component:sensor', model: 'acme:sonar:ultrasonic' });
    expect(errorsOf(app)).toEqual([]);
    expect(warningsOf(app)).toEqual(['s/rover/sonar model model-module-mismatch']);
  });

  test('acknowledgments are checked as props: code, path and reason, nothing else', () => {
    const stack = new TerraformStack(new App(), 's');
    expect(() => new Machine(stack, 'm', { acknowledged: [{ code: 'module-version', path: 'modules.x.version' } as never] })).toThrow(
      /reason/,
    );
  });
});

test('a Part acknowledges the certain failures of its own config', () => {
  const { app, stack } = newStack('s');
  const machine = new Machine(stack, 'rover');
  const part = new Part(machine, 'arm', {
    acknowledged: [{ code: 'module-version', path: 'modules.acme_arm.version', reason: 'pinned on the arm computer' }],
  });
  new Module(part, 'arm', { moduleId: 'acme:arm', version: '~3' });
  expect(errorsOf(app)).toEqual([]);
  expect(warningsOf(app)).toEqual(['s/rover/arm/arm version module-version']);
  expect(resourceOf(synth(stack), 'fleetform_machine_part', 'rover_arm').acknowledged).toEqual({
    'modules.acme_arm.version': { 'module-version': 'pinned on the arm computer' },
  });
});
