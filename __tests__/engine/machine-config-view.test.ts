/**
 * The plan's view of a machine config and the write made from it agree: two configs have the
 * same view exactly when they are the same JSON (key order aside), and the document written
 * from a config's view is that config. So a plan with no changes is one whose write would
 * send what the service stores.
 */
import fc from 'fast-check';
import { configDocument, configView } from '../../src/engine/kinds/machine-config-view';
import { fragmentConfigDocument, fragmentConfigView } from '../../src/engine/kinds/fragment';
import { secretEnvEntries } from '../../src/engine/kinds/machine-secrets';
import { jsonEqual, stableStringify, type JsonObject } from '../../src/engine/json';
import { realConfigs } from '../fixtures/real-configs';
import { HAND_WRITTEN, HAND_WRITTEN_FRAGMENTS } from '../e2e/real-config-forms';

const known = [...realConfigs().map((r) => r.config), ...HAND_WRITTEN.map((h) => h.config), ...HAND_WRITTEN_FRAGMENTS.map((f) => f.config)];

test('every known config is written back from its view exactly, lists present or absent and imports in the form written', () => {
  for (const config of known) {
    // The write keeps the service's own keys (`revision`) of the config it replaces.
    expect(stableStringify(configDocument(configView(config), config))).toBe(stableStringify(config));
    // A fragment's view keeps every top-level key it has.
    expect(stableStringify(fragmentConfigDocument(fragmentConfigView(config)))).toBe(stableStringify(config));
  }
});

test('an absent list and an empty one are different views, as are a bare-id import and an object one', () => {
  const pairs: Array<[Record<string, unknown>, Record<string, unknown>]> = [
    [{ components: [] }, {}],
    [{ packages: [] }, {}],
    [{ remotes: [] }, { remotes: [{ name: 'r', address: 'a:1' }] }],
    [{ fragments: [] }, {}],
    [{ fragment_mods: [] }, {}],
    [{ fragments: ['f1'] }, { fragments: [{ id: 'f1' }] }],
  ];
  for (const [a, b] of pairs) expect(jsonEqual(configView(a), configView(b))).toBe(false);
  expect(configView({ components: [], modules: [] })).toEqual({ components: {}, modules: {} });
  expect(configDocument(configView({ services: [] }), { revision: '3' })).toEqual({ revision: '3', services: [] });
});

test('two generated configs have equal views exactly when they are equal JSON, and each is written back as it is', () => {
  const entry = (name: string) => fc.constantFrom({ name, model: 'fake' }, { name, model: 'other' });
  const list = (name: string) => fc.oneof(fc.constant(undefined), fc.constant([]), fc.array(entry(name), { minLength: 1, maxLength: 1 }));
  const imports = fc.oneof(fc.constant(undefined), fc.constant([]), fc.constant(['f1']), fc.constant([{ id: 'f1' }]));
  const config = fc
    .record({
      components: list('c'),
      services: list('s'),
      modules: list('m'),
      packages: list('p'),
      remotes: list('r'),
      processes: list('x'),
      fragments: imports,
      network: fc.oneof(fc.constant(undefined), fc.constant({ bind_address: ':8080' })),
    })
    .map((c) => JSON.parse(JSON.stringify(c)) as JsonObject);
  fc.assert(
    fc.property(config, config, (a, b) => {
      expect(jsonEqual(configView(a), configView(b))).toBe(stableStringify(a) === stableStringify(b));
      expect(stableStringify(configDocument(configView(a)))).toBe(stableStringify(a));
    }),
    { numRuns: 400 },
  );
});

test('a placeholder at a secret path or under a secret-looking env name is not masked; a literal secret is', () => {
  const view: JsonObject = {
    name: 'm',
    config: {
      modules: { helper: { name: 'helper', env: { API_TOKEN: '${environment.API_TOKEN}', DB_PASSWORD: 'pw', REGION: 'eu' } } },
      remotes: [
        { name: 'a', auth: { credentials: { payload: '${RDK_AUTH_API_KEY}' } } },
        { name: 'b', auth: { credentials: { payload: 'literal' } } },
      ],
    },
  };
  expect(secretEnvEntries.paths(view, {})).toEqual(['config.modules.helper.env.DB_PASSWORD', 'config.remotes[1].auth.credentials.payload']);
});

test('a write over a stored config keeps the order of its entries and keys: a plan with no changes sends the same JSON', () => {
  const stored = {
    modules: [{ version: '1.0.0', module_id: 'x:b', name: 'b', type: 'registry' }],
    components: [
      { name: 'cam', model: 'webcam', api: 'rdk:component:camera' },
      { name: 'arm', model: 'fake', api: 'rdk:component:arm', attributes: { z: 1, a: 2 } },
    ],
    services: [],
  };
  const code = {
    components: [
      { name: 'arm', api: 'rdk:component:arm', model: 'fake', attributes: { a: 2, z: 1 } },
      { name: 'base', api: 'rdk:component:base', model: 'fake' },
      { name: 'cam', api: 'rdk:component:camera', model: 'webcam' },
    ],
    services: [],
    modules: [{ type: 'registry', name: 'b', module_id: 'x:b', version: '1.0.0' }],
  };
  const written = configDocument(configView(code), stored);
  expect(JSON.stringify(written)).toBe(
    JSON.stringify({
      modules: stored.modules,
      components: [...stored.components, { name: 'base', api: 'rdk:component:base', model: 'fake' }],
      services: [],
    }),
  );
  // The same config as stored, in another order: its view is the stored one's, and the write sends the stored text.
  const same = { ...code, components: code.components.filter((c) => c.name !== 'base') };
  expect(stableStringify(configView(same))).toBe(stableStringify(configView(stored)));
  expect(JSON.stringify(configDocument(configView(same), stored))).toBe(JSON.stringify(stored));
});
