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
    // Stored from a Struct: its order is the service's reshuffle, so the write takes the code's.
    const doc = configDocument(configView(code), stored, false);
    expect(Object.keys(doc)).toEqual(['revision', 'cloud', 'components', 'modules', 'network', 'agent']);
  });

  test('over a config a client stored as text, its order stands for every key both hold; the rest follows in the order synth writes', () => {
    const stored = { network: { bind_address: ':8080' }, revision: 'r1', components: [{ model: 'webcam', name: 'cam' }] };
    const code = { components: [{ name: 'cam', model: 'webcam' }], modules: [{ name: 'm' }], network: { bind_address: ':9090' } };
    const doc = configDocument(configView(code), stored, true);
    expect(JSON.stringify(doc)).toBe(
      JSON.stringify({
        network: { bind_address: ':9090' },
        revision: 'r1',
        components: [{ model: 'webcam', name: 'cam' }],
        modules: [{ name: 'm' }],
      }),
    );
  });
});
