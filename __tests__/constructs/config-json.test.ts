/**
 * A machine's `config` (its entries made without copying the constructs' attributes) is
 * byte for byte what JSON.stringify gives for every part's toConfig(), secret env entries
 * left out; the assembled document validation reads has the same entries.
 */
import { Construct } from 'constructs';
import type { ModularResource as ModularResourceConfig } from '../../src/domain';
import { Machine, ModularResource, Module, Secret } from '../../src/constructs';
import { synthesizedConfig } from '../../src/constructs/config-json';
import { assembleMachine } from '../../src/constructs/machine-config';
import type { JsonObject } from '../../src/constructs/json-value';
import { newStack } from './helpers';

/** The config JSON as one JSON.stringify of every part's toConfig(), secrets left out. */
function expectedJson(machine: Machine): string {
  const { secretEnv } = assembleMachine(machine);
  const config: { components: unknown[]; services: unknown[]; modules: unknown[] } = { components: [], services: [], modules: [] };
  for (const resource of machine.resources) config[resource.configList].push(resource.toConfig());
  config.modules = machine.modules.map((part) => {
    const module = part.toConfig();
    if (module.env === undefined) return module;
    const env = Object.fromEntries(Object.entries(module.env).filter(([key]) => !(`${module.name}.${key}` in secretEnv)));
    const { env: _all, ...rest } = module;
    return Object.keys(env).length > 0 ? { ...rest, env } : rest;
  });
  return JSON.stringify(config);
}

class Renamed extends ModularResource {
  override toConfig(): ModularResourceConfig {
    return { ...super.toConfig(), name: `renamed-${this.name}` };
  }
}

test('entries written one by one are the JSON of the assembled document', () => {
  const { stack } = newStack();
  const machine = new Machine(stack, 'm');
  const sensors = new Module(machine, 'sensors', {
    moduleId: 'acme:sensors',
    version: '~1.2',
    env: { PATH: '/bin:${environment.PATH}', DB_PASSWORD: Secret.plainText('x') },
    sensitiveEnv: { API_KEY: Secret.plainText('k') },
  });
  new Module(machine, 'local', { name: 'drv', executablePath: '/opt/drv', sensitiveEnv: { TOKEN: Secret.plainText('t') } });
  const odd = JSON.parse(
    '{"__proto__":{"a":1},"ü":"\\u2028 \\"q\\" \\\\","n":[1e21,-0,0.30000000000000004,1.5e-7],"deep":[[{"x":null}]],"t":true}',
  ) as JsonObject;
  new ModularResource(machine, 'cam', { api: 'rdk:component:camera', model: sensors.model('cam'), attributes: odd });
  const nested = new Construct(machine, 'rig');
  new ModularResource(nested, 'nav', { name: 'nav-1', api: 'rdk:service:navigation', model: sensors.model('nav'), dependsOn: ['cam'] });
  new ModularResource(machine, 'when', {
    api: 'rdk:component:sensor',
    model: sensors.model('clock'),
    attributes: { at: new Date(0) } as unknown as JsonObject,
  });
  new Renamed(machine, 'arm', { api: 'rdk:component:arm', model: sensors.model('arm') });
  const { configJson, secretEnv } = synthesizedConfig(machine);
  expect(configJson).toBe(expectedJson(machine));
  expect(secretEnv).toEqual({ 'acme_sensors.API_KEY': 'k', 'acme_sensors.DB_PASSWORD': 'x', 'drv.TOKEN': 't' });
  expect(configJson).toContain('"name":"renamed-arm"');
  expect(configJson).toContain('"at":"1970-01-01T00:00:00.000Z"');
  const assembled = assembleMachine(machine).config;
  expect(assembled.components).toEqual(machine.resources.filter((r) => r.configList === 'components').map((r) => r.toConfig()));
  expect(assembled.services).toEqual(machine.resources.filter((r) => r.configList === 'services').map((r) => r.toConfig()));
});

test('a machine without parts', () => {
  const { stack } = newStack();
  const machine = new Machine(stack, 'bare');
  expect(synthesizedConfig(machine).configJson).toBe('{"components":[],"services":[],"modules":[]}');
});
