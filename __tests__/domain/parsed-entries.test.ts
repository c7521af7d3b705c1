/**
 * Entries known to have their list's form (made by code from checked props) are read as
 * they are, not parsed again: every other check gives the same findings, and an entry that
 * is not of that form after all (a class instance as attributes) is still parsed.
 */
import { validateMachineConfig } from '../../src/domain';

/** A config whose entries all have their lists' form, with findings of every other kind. */
function configWithFindings(): Record<string, unknown> {
  return {
    components: [
      { name: 'arm', api: 'rdk:component:arm', model: 'acme:arm:six', attributes: { host: '10.0.0.1' }, depends_on: ['board'] },
      { name: 'arm', api: 'rdk:component:arm', model: 'acme:arm:six', attributes: {}, depends_on: [] },
      {
        name: 'cam',
        api: 'rdk:component:camera',
        model: 'other:cams:fast',
        attributes: { path: '${packages.missing}' },
        depends_on: ['cam'],
      },
      { name: 'loop-a', api: 'rdk:component:sensor', model: 'acme:arm:s', attributes: {}, depends_on: ['loop-b'] },
      { name: 'loop-b', api: 'rdk:component:sensor', model: 'acme:arm:s', attributes: {}, depends_on: ['loop-a'], disabled: true },
    ],
    services: [{ name: 'vision', api: 'rdk:service:vision', model: 'bad model', attributes: {}, depends_on: [] }],
    modules: [
      { type: 'registry', name: 'arm', module_id: 'acme:arm', version: 'not a version', env: { '1BAD': 'x', LOG_LEVEL: 'info' } },
      { type: 'registry', name: 'arm', module_id: 'acme:arm', version: '1.0.0' },
      { type: 'local', name: 'local-one', executable_path: 'relative/path', log_level: 'debug' },
    ],
  };
}

/** Every entry of the config's resource lists and modules. */
function entriesOf(config: Record<string, unknown>): Set<unknown> {
  return new Set(['components', 'services', 'modules'].flatMap((list) => config[list] as unknown[]));
}

describe('entries already parsed', () => {
  test('give the same findings as entries parsed here, in the same order', () => {
    const config = configWithFindings();
    const parsedHere = validateMachineConfig(config, { allowUnpinnedModules: true });
    expect(parsedHere.errors.length + parsedHere.warnings.length).toBeGreaterThan(8);
    expect(validateMachineConfig(config, { allowUnpinnedModules: true, parsed: entriesOf(config) })).toEqual(parsedHere);
  });

  test('an entry whose attributes or env are no plain object is parsed all the same', () => {
    class Attributes {
      readonly host = 'h';
    }
    const config = {
      components: [{ name: 'arm', api: 'rdk:component:arm', model: 'rdk:builtin:fake', attributes: new Attributes() }],
      modules: [{ type: 'registry', name: 'm', module_id: 'acme:m', version: '1.0.0', env: new Map([['A', 'b']]) }],
    };
    const parsedHere = validateMachineConfig(config);
    expect(parsedHere.errors.map((e) => e.path)).toEqual(expect.arrayContaining(['components[0].attributes']));
    expect(validateMachineConfig(config, { parsed: entriesOf(config) })).toEqual(parsedHere);
  });
});
