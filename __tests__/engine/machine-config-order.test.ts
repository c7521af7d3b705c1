import { configDocument, configView } from '../../src/engine/kinds/machine-config-view';

describe('the order a machine config is written in', () => {
  test("a new machine's config is written in the code's order, sections and entries alike", () => {
    const code = {
      services: [{ name: 'dm', api: 'rdk:service:data_manager', model: 'rdk:builtin:builtin' }],
      network: { bind_address: ':8080' },
      components: [
        { name: 'zeta', model: 'm', api: 'rdk:component:camera' },
        { name: 'alpha', api: 'rdk:component:camera', model: 'm' },
      ],
    };
    const doc = configDocument(configView(code));
    expect(Object.keys(doc).slice(0, 3)).toEqual(['services', 'network', 'components']);
    expect(JSON.stringify(doc.components)).toBe(JSON.stringify(code.components));
  });

  test("the service's keys keep their places; unmanaged ones keep their values; new ones follow", () => {
    const stored = { cloud: { id: 'x' }, components: [], revision: 'r1', services: [] };
    const code = { network: { bind_address: ':9090' }, services: [{ name: 'dm' }], components: [{ name: 'cam' }] };
    const doc = configDocument(configView(code), stored);
    // modules are always written: after the code's keys.
    expect(Object.keys(doc)).toEqual(['cloud', 'components', 'revision', 'services', 'network', 'modules']);
    expect(doc.cloud).toEqual({ id: 'x' });
    expect(doc.components).toEqual([{ name: 'cam' }]);
  });
});
