import { configDocument, configView } from '../../src/engine/kinds/machine-config-view';

describe('the order a machine config is written in', () => {
  test('entries and every key inside them keep the order the code gives them', () => {
    const code = {
      components: [
        { name: 'zeta', model: 'm', api: 'rdk:component:camera', attributes: { z: 1, a: { y: 2, b: 3 } } },
        { name: 'alpha', api: 'rdk:component:camera', model: 'm' },
      ],
      network: { bind_address: ':8080', heartbeat_window: '30s' },
    };
    const doc = configDocument(configView(code));
    expect(JSON.stringify(doc.components)).toBe(JSON.stringify(code.components));
    expect(JSON.stringify(doc.network)).toBe(JSON.stringify(code.network));
  });

  test("sections in the order synth writes them (components, services, modules, then the rest as given), the service's own keys first", () => {
    const stored = { revision: 'r1', services: [], cloud: { id: 'x' } };
    const code = { network: { bind_address: ':9090' }, agent: {}, modules: [{ name: 'm' }], components: [{ name: 'cam' }] };
    const doc = configDocument(configView(code), stored);
    expect(Object.keys(doc)).toEqual(['revision', 'cloud', 'components', 'services', 'modules', 'network', 'agent']);
  });
});
