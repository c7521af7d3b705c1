import { TerraformOutput, Testing } from 'cdktf';
import { Construct } from 'constructs';
import { FleetformError } from '../../src/domain/errors';
import { FleetProvider, Machine, ModularResource, Module } from '../../src/constructs';
import { errorsOf, machineConfig, newStack, resourceOf, synth } from './helpers';

function sensorMachine(scope: Construct, id: string, props: { name?: string; locationId?: string } = {}): Machine {
  const machine = new Machine(scope, id, props);
  const sensors = new Module(machine, 'sensors', { moduleId: 'acme:sensors', version: '~1.2' });
  new ModularResource(machine, 'board', { name: 'board-1', api: 'rdk:component:board', model: sensors.model('pi-board') });
  return machine;
}

describe('Machine', () => {
  test('synthesizes one fleetform_machine with name, location and the config as one compact JSON string', () => {
    const { stack } = newStack();
    new FleetProvider(stack, 'cloud');
    sensorMachine(stack, 'picker-1', { locationId: 'loc-7' });
    const doc = synth(stack);
    const machine = resourceOf(doc, 'fleetform_machine', 'picker-1');
    expect(machine.name).toBe('picker-1');
    expect(machine.location_id).toBe('loc-7');
    expect(typeof machine.config).toBe('string');
    expect(machine.config as string).not.toMatch(/\n|": /);
    expect(machine).not.toHaveProperty('secret_env');
    expect(JSON.parse(machine.config as string)).toEqual({
      components: [{ name: 'board-1', api: 'rdk:component:board', model: 'acme:sensors:pi-board', attributes: {}, depends_on: [] }],
      services: [],
      modules: [{ type: 'registry', name: 'acme_sensors', module_id: 'acme:sensors', version: '~1.2' }],
    });
  });

  test('name defaults to the construct id; location is left to plan time', () => {
    const { stack } = newStack();
    new Machine(stack, 'bare');
    const machine = resourceOf(synth(stack), 'fleetform_machine', 'bare');
    expect(machine).toEqual({ name: 'bare', config: '{"components":[],"services":[],"modules":[]}' });
  });

  test('parts declared in constructs nested in the machine belong to it, in declaration order', () => {
    const { stack } = newStack();
    const machine = new Machine(stack, 'm');
    const kit = new Construct(machine, 'kit');
    const sensors = new Module(kit, 'sensors', { moduleId: 'acme:sensors', version: '1.2.3' });
    new ModularResource(kit, 'board', { api: 'rdk:component:board', model: sensors.model('pi-board') });
    new ModularResource(machine, 'finder', { api: 'rdk:service:vision', model: 'acme:sensors:pi-board' });
    new ModularResource(machine, 'cam', { api: 'rdk:component:camera', model: sensors.model('multi-cam') });
    const config = machineConfig(synth(stack), 'm');
    expect(config.components.map((c) => c.name)).toEqual(['board', 'cam']);
    expect(config.services.map((c) => c.name)).toEqual(['finder']);
    expect(machine.modules.map((m) => m.name)).toEqual(['acme_sensors']);
    expect(machine.resources.map((r) => r.name)).toEqual(['board', 'finder', 'cam']);
    expect(machine.toMachineConfig()).toEqual(config);
  });

  test('machineId is a reference to the id assigned at apply', () => {
    const { stack } = newStack();
    const machine = new Machine(stack, 'm');
    new TerraformOutput(stack, 'machine-id', { value: machine.machineId });
    expect(JSON.parse(Testing.synth(stack)).output['machine-id'].value).toBe('${fleetform_machine.m.id}');
  });

  test('logical ids are the construct ids below the stack, readable and not hashed', () => {
    const { stack } = newStack();
    const line = new Construct(stack, 'line-a');
    new Machine(line, 'picker 1');
    new Machine(stack, '7up');
    new Machine(stack, 'dock.2');
    new Machine(stack, 'Dock_3-b');
    const machines = synth(stack).resource?.fleetform_machine ?? {};
    expect(Object.keys(machines).sort()).toEqual(['Dock_3-b', '_7up', 'dock_2', 'line-a_picker_1']);
  });

  test('two constructs mapping to one address are an error naming both', () => {
    const { app, stack } = newStack('s');
    new Machine(new Construct(stack, 'a'), 'b_c', { name: 'one' });
    new Machine(new Construct(stack, 'a_b'), 'c', { name: 'two' });
    expect(errorsOf(app)).toEqual(['s/a_b/c  address-collision']);
    expect(() => Testing.synth(stack, true)).toThrow(/fleetform_machine\.a_b_c is also the address of s\/a\/b_c/);
  });

  test('machine names are unique per location within a stack', () => {
    const { app, stack } = newStack('s');
    new Machine(stack, 'one', { name: 'robot' });
    new Machine(stack, 'two', { name: 'robot' });
    new Machine(stack, 'three', { name: 'robot', locationId: 'elsewhere' });
    expect(errorsOf(app)).toEqual(['s/two name duplicate-machine-name']);
  });

  test('an empty machine name is an error', () => {
    const { app, stack } = newStack('s');
    new Machine(stack, 'blank', { name: ' ' });
    expect(errorsOf(app)).toEqual(['s/blank name machine-name']);
  });

  test('a machine inside another machine is refused at once', () => {
    const { stack } = newStack();
    const outer = new Machine(stack, 'outer');
    expect(() => new Machine(outer, 'inner')).toThrow(FleetformError);
    expect(() => new Machine(new Construct(outer, 'group'), 'inner2')).toThrow(/cannot be declared inside another Machine/);
  });

  test('modules and resources outside every machine are refused at once', () => {
    const { stack } = newStack();
    expect(() => new Module(stack, 'm', { moduleId: 'acme:sensors' })).toThrow(/Module must be declared inside a Machine/);
    expect(() => new ModularResource(stack, 'r', { api: 'rdk:component:board', model: 'acme:sensors:pi-board' })).toThrow(
      /ModularResource must be declared inside a Machine/,
    );
  });

  test('isMachine recognizes machines only', () => {
    const { stack } = newStack();
    const m = new Machine(stack, 'm');
    expect(Machine.isMachine(m)).toBe(true);
    expect(Machine.isMachine({})).toBe(false);
  });
});
