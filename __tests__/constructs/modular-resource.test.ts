import { Testing } from 'cdktf';
import { Construct } from 'constructs';
import { Dataset, Machine, ModularResource, Module } from '../../src/constructs';
import { errorsOf, issueAt, machineConfig, newStack, synth, warningsOf } from './helpers';

function machineWithSensors(scope: Construct, id = 'm'): { machine: Machine; sensors: Module } {
  const machine = new Machine(scope, id);
  const sensors = new Module(machine, 'sensors', { moduleId: 'acme:sensors', version: '~1.2' });
  return { machine, sensors };
}

describe('ModularResource', () => {
  test('the seed sensor shape: string pins, a board name, an integer timeout, depending on the board', () => {
    const { stack } = newStack();
    const { sensors, machine } = machineWithSensors(stack);
    const board = new ModularResource(machine, 'board', { name: 'board-1', api: 'rdk:component:board', model: sensors.model('pi-board') });
    new ModularResource(machine, 'ultrasonic', {
      name: 'ultrasonic-1',
      api: 'rdk:component:sensor',
      model: sensors.model('hc-sr04'),
      attributes: { trigger_pin: '11', echo_interrupt_pin: '13', board: 'board-1', timeout_ms: 150 },
      dependsOn: [board],
    });
    new ModularResource(machine, 'camera', {
      name: 'camera-1',
      api: 'rdk:component:camera',
      model: sensors.model('multi-cam'),
      attributes: { sensors: ['ultrasonic-1'] },
      dependsOn: ['ultrasonic-1'],
    });
    expect(machineConfig(synth(stack), 'm').components).toEqual([
      { name: 'board-1', api: 'rdk:component:board', model: 'acme:sensors:pi-board', attributes: {}, depends_on: [] },
      {
        name: 'ultrasonic-1',
        api: 'rdk:component:sensor',
        model: 'acme:sensors:hc-sr04',
        attributes: { trigger_pin: '11', echo_interrupt_pin: '13', board: 'board-1', timeout_ms: 150 },
        depends_on: ['board-1'],
      },
      {
        name: 'camera-1',
        api: 'rdk:component:camera',
        model: 'acme:sensors:multi-cam',
        attributes: { sensors: ['ultrasonic-1'] },
        depends_on: ['ultrasonic-1'],
      },
    ]);
  });

  test('a service API puts the resource under services; name defaults to the construct id', () => {
    const { stack } = newStack();
    const machine = new Machine(stack, 'm');
    const vision = new Module(machine, 'vision', { moduleId: 'acme:vision', version: '^1' });
    const finder = new ModularResource(machine, 'box-finder', { api: 'rdk:service:vision', model: vision.model('box-finder') });
    expect(finder.configList).toBe('services');
    const config = machineConfig(synth(stack), 'm');
    expect(config.components).toEqual([]);
    expect(config.services).toEqual([
      { name: 'box-finder', api: 'rdk:service:vision', model: 'acme:vision:box-finder', attributes: {}, depends_on: [] },
    ]);
  });

  test('attributes keep ${environment.NAME} placeholders and nested values', () => {
    const { stack } = newStack();
    const { sensors, machine } = machineWithSensors(stack);
    new ModularResource(machine, 'cam', {
      api: 'rdk:component:camera',
      model: sensors.model('multi-cam'),
      attributes: { path: '${environment.HOME}/frames', crop: { x: 1, y: [2, 3] }, enabled: true, note: null },
    });
    expect(machineConfig(synth(stack), 'm').components[0]?.attributes).toEqual({
      path: '${environment.HOME}/frames',
      crop: { x: 1, y: [2, 3] },
      enabled: true,
      note: null,
    });
  });

  test('malformed API and model triplets are errors on their fields in code (the resource certainly fails); acknowledged, warnings', () => {
    const { app, stack } = newStack('s');
    const { machine } = machineWithSensors(stack);
    new ModularResource(machine, 'r', { api: 'rdk:widget:board', model: 'acme:sensors' });
    expect(errorsOf(app)).toEqual(['s/m/r api api-triplet', 's/m/r model model-triplet']);
    machine.acknowledge({ code: 'api-triplet', path: 'components.r.api', reason: 'kept broken' });
    machine.acknowledge({ code: 'model-triplet', path: 'components.r.model', reason: 'kept broken' });
    expect(errorsOf(app)).toEqual([]);
    expect(warningsOf(app)).toEqual(['s/m/r api api-triplet', 's/m/r model model-triplet']);
    expect(() => Testing.synth(stack, true)).not.toThrow();
  });

  test('a model whose prefix is no configured module id is a warning listing the module ids', () => {
    const { app, stack } = newStack('s');
    const { machine } = machineWithSensors(stack);
    new ModularResource(machine, 'arm', { api: 'rdk:component:arm', model: 'acme:arm-control:six-axis' });
    const issue = issueAt(app, 's/m/arm', 'model');
    expect(issue.code).toBe('model-module-mismatch');
    expect(issue.message).toMatch(/configured module ids: acme:sensors/);
  });

  test("a model's case is the module's own: viam:ufactory:xArm6 of module viam:ufactory raises nothing at synth", () => {
    const { app, stack } = newStack('s');
    const machine = new Machine(stack, 'arm-1');
    const ufactory = new Module(machine, 'ufactory', { moduleId: 'viam:ufactory', version: '~1.0' });
    new ModularResource(machine, 'arm', { api: 'rdk:component:arm', model: ufactory.model('xArm6') });
    expect(errorsOf(app)).toEqual([]);
    expect(warningsOf(app)).toEqual([]);
  });

  test('names: invalid names and duplicates under one API are errors in code; one name under two APIs is fine', () => {
    const { app, stack } = newStack('s');
    const { machine, sensors } = machineWithSensors(stack);
    new ModularResource(machine, 'a', { name: 'dev', api: 'rdk:component:board', model: sensors.model('pi-board') });
    new ModularResource(machine, 'b', { name: 'dev', api: 'rdk:component:camera', model: sensors.model('multi-cam') });
    new ModularResource(machine, 'c', { name: 'dev', api: 'rdk:component:board', model: sensors.model('pi-board') });
    new ModularResource(machine, 'd', { name: '-dash', api: 'rdk:component:board', model: sensors.model('pi-board') });
    expect(errorsOf(app)).toEqual(['s/m/c name duplicate-resource-name', 's/m/d name resource-name']);
    expect(warningsOf(app)).toEqual([]);
  });

  test('dependencies: missing, self, and cycles are errors on dependsOn in code', () => {
    const { app, stack } = newStack('s');
    const { machine, sensors } = machineWithSensors(stack);
    const model = sensors.model('pi-board');
    new ModularResource(machine, 'a', { api: 'rdk:component:board', model, dependsOn: ['b'] });
    new ModularResource(machine, 'b', { api: 'rdk:component:board', model, dependsOn: ['a', 'ghost'] });
    new ModularResource(machine, 'c', { api: 'rdk:component:board', model, dependsOn: ['c'] });
    expect(errorsOf(app)).toEqual([
      's/m/a dependsOn depends-on-cycle',
      's/m/b dependsOn[1] depends-on-missing',
      's/m/c dependsOn[0] depends-on-self',
    ]);
    expect(issueAt(app, 's/m/a', 'dependsOn').message).toBe('circular dependency: a -> b -> a');
  });

  test('a dependency on a resource of another machine is an error (reported once)', () => {
    const { app, stack } = newStack('s');
    const one = machineWithSensors(stack, 'one');
    const two = machineWithSensors(stack, 'two');
    const board = new ModularResource(one.machine, 'board', { api: 'rdk:component:board', model: one.sensors.model('pi-board') });
    new ModularResource(two.machine, 'cam', { api: 'rdk:component:camera', model: two.sensors.model('multi-cam'), dependsOn: [board] });
    expect(errorsOf(app)).toEqual(['s/two/cam dependsOn[0] depends-on-other-machine']);
  });

  test('references to other resources inside a machine config are refused', () => {
    const { app, stack } = newStack('s');
    const { machine, sensors } = machineWithSensors(stack);
    const ds = new Dataset(stack, 'ds');
    new ModularResource(machine, 'cam', {
      api: 'rdk:component:camera',
      model: sensors.model('multi-cam'),
      attributes: { dataset: ds.datasetId },
    });
    expect(errorsOf(app)).toEqual(['s/m/cam attributes.dataset unresolved-token']);
  });

  test('an invalid placeholder in attributes is an error on that attribute', () => {
    const { app, stack } = newStack('s');
    const { machine, sensors } = machineWithSensors(stack);
    new ModularResource(machine, 'cam', {
      api: 'rdk:component:camera',
      model: sensors.model('multi-cam'),
      attributes: { dirs: ['${home}'] },
    });
    expect(errorsOf(app)).toEqual(['s/m/cam attributes.dirs[0] placeholder']);
  });
});
