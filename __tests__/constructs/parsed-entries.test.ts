/**
 * A machine's checks read the entries made of props its constructs checked without parsing
 * them again: a ModularResource's and a Module's own entries, not one an override changed,
 * nor a Component's (its frames and data capture are not checked as props).
 */
import { Component, Machine, ModularResource, Module } from '../../src/constructs';
import { assembleMachine } from '../../src/constructs/machine-config';
import { errorsOf, newStack } from './helpers';

describe('entries made of checked props', () => {
  test('are the ones without overrides, of ModularResource and Module', () => {
    const { stack } = newStack();
    const machine = new Machine(stack, 'm');
    const sensors = new Module(machine, 'sensors', {
      name: 'sensors',
      moduleId: 'acme:sensors',
      version: '1.0.0',
      env: { LOG_LEVEL: 'info' },
    });
    new Module(machine, 'vision', { name: 'vision', moduleId: 'acme:vision', version: '1.0.0' }).addConfigOverride('_comment', 'x');
    new ModularResource(machine, 'plain', { api: 'rdk:component:sensor', model: sensors.model('s') });
    new ModularResource(machine, 'changed', { api: 'rdk:component:sensor', model: sensors.model('s') }).addConfigOverride('_comment', 'x');
    new Component(machine, 'cam', { type: 'camera', model: 'webcam' });
    const { config, parsedEntries } = assembleMachine(machine);
    const byName = (list: ReadonlyArray<{ name?: string }> | undefined, name: string): unknown => list?.find((e) => e.name === name);
    expect(parsedEntries.has(byName(config.modules, 'sensors'))).toBe(true);
    expect(parsedEntries.has(byName(config.modules, 'vision'))).toBe(false);
    expect(parsedEntries.has(byName(config.components, 'plain'))).toBe(true);
    expect(parsedEntries.has(byName(config.components, 'changed'))).toBe(false);
    expect(parsedEntries.has(byName(config.components, 'cam'))).toBe(false);
  });

  test('still have their findings, each on the construct that declared it', () => {
    const { app, stack } = newStack();
    const machine = new Machine(stack, 'm');
    new Module(machine, 'sensors', { moduleId: 'acme:sensors', version: 'not a version' });
    new ModularResource(machine, 'arm', { api: 'rdk:component:arm', model: 'other:arms:six', dependsOn: ['board'] });
    expect(errorsOf(app).sort()).toEqual([
      'stack/m/arm dependsOn[0] depends-on-missing',
      'stack/m/arm model model-module-mismatch',
      'stack/m/sensors version module-version',
    ]);
  });
});
