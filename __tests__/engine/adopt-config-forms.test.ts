/**
 * Adoption writes code that declares a config exactly: the lists it holds (empty or not)
 * and none it has not, imports in the form written, and environment placeholders as
 * written rather than as secrets to export again.
 */
import { planAdoption } from '../../src/engine/adopt/adoption';
import { importsCode, secretVariables } from '../../src/engine/adopt/fragment-code';
import type { Inventory, InventoryMachine } from '../../src/engine/adopt/inventory';
import { renderAdoption } from '../../src/engine/adopt/render';
import { machineConfigCode } from '../../src/engine/adopt/machine-code';

function codeOf(config: Record<string, unknown>) {
  const made = machineConfigCode(config, 'm');
  if (!made.ok) throw new Error(made.reason);
  return made;
}

test('the lists a config holds are its emptyLists when not the three a machine always writes', () => {
  expect(codeOf({ components: [], services: [], modules: [] }).code.emptyLists).toBeUndefined();
  expect(codeOf({ modules: [], services: [], components: [] }).code.emptyLists).toBeUndefined();
  expect(codeOf({}).code.emptyLists).toEqual([]);
  expect(codeOf({ services: [{ name: 'motion', type: 'motion' }], packages: [], remotes: [], processes: [] }).code.emptyLists).toEqual([
    'services',
    'packages',
    'remotes',
    'processes',
  ]);
  // Empty lists need no override: emptyLists writes them.
  expect(codeOf({ remotes: [], processes: [], packages: [] }).code.overrides).toEqual([]);
});

test('imports written empty are kept as written', () => {
  expect(codeOf({ fragments: [], fragment_mods: [] }).code.overrides).toEqual([
    { path: 'fragments', value: [] },
    { path: 'fragment_mods', value: [] },
  ]);
});

test('a bare-id import is kept in its form, an object one in its own', () => {
  const made = importsCode({ fragments: ['f-1', { id: 'f-2' }] });
  expect(made).toEqual({ ok: true, imports: [{ fragmentId: 'f-1', bareId: true }, { fragmentId: 'f-2' }] });
});

test('placeholders are kept as written; literal secrets are read from the environment', () => {
  const made = codeOf({
    modules: [
      { type: 'local', name: 'helper', executable_path: '/opt/h', env: { API_TOKEN: '${environment.API_TOKEN}', DB_PASSWORD: 'pw' } },
    ],
    remotes: [
      { name: 'a', address: 'a:1', auth: { credentials: { type: 'api-key', payload: '${RDK_AUTH_API_KEY}' } } },
      { name: 'b', address: 'b:1', auth: { credentials: { type: 'api-key', payload: '${RDK_AUTH_API_KEY}2' } } },
    ],
  });
  expect(made.code.modules[0]?.env).toEqual({ API_TOKEN: '${environment.API_TOKEN}' });
  expect(made.code.modules[0]?.sensitiveEnv).toEqual({ DB_PASSWORD: 'M_HELPER_DB_PASSWORD' });
  expect(made.secrets.map((s) => s.value)).toEqual(['${RDK_AUTH_API_KEY}2', 'pw']);
  expect(JSON.stringify(made.code.entries)).toContain('"payload":"${RDK_AUTH_API_KEY}"');
  expect(secretVariables({ variables: { API_TOKEN: '${environment.KIT_TOKEN}', DB_PASSWORD: 'pw', rate: '2' } })).toEqual({
    DB_PASSWORD: 'pw',
  });
});

test('machines share a config only with the same lists; each Machine and Part says its lists as a prop', () => {
  const location = { id: 'loc', name: 'site', parentLocationId: '', organizationId: 'org' };
  const board = { name: 'b', api: 'rdk:component:board', model: 'fake' };
  const machine = (id: string, config: Record<string, unknown>, parts: Record<string, unknown>[] = []): InventoryMachine => ({
    id,
    name: id,
    locationId: 'loc',
    parts: [
      { id: `${id}-main`, name: `${id}-main`, machineId: id, locationId: 'loc', mainPart: true, config },
      ...parts.map((c, i) => ({ id: `${id}-p${i}`, name: `p${i}`, machineId: id, locationId: 'loc', mainPart: false, config: c })),
    ],
  });
  const inventory: Inventory = {
    organizationId: 'org',
    locations: [location],
    machines: [
      machine('cell-1', { components: [board] }),
      machine('cell-2', { components: [board] }),
      machine('cell-3', { components: [board], services: [], modules: [] }, [{ remotes: [] }]),
    ],
    fragments: [],
    datasets: [],
    jobs: [],
  };
  const a = planAdoption(inventory, { managed: new Map() });
  expect(a.blocks.map((b) => b.machines)).toEqual([['cell-1', 'cell-2']]);
  const code = renderAdoption(a, { className: 'AdoptedStack', cdk: 'cdktf' });
  expect(code).toContain("cellConfig(new Machine(this, 'cell-1', { location: site, emptyLists: ['components'] }));");
  expect(code).toContain("cellConfig(new Machine(this, 'cell-2', { location: site, emptyLists: ['components'] }));");
  expect(code).toMatch(/new Machine\(this, 'cell-3', \{ location: site \}\)/);
  expect(code).toContain("new Part(cell3, 'p0', { emptyLists: ['remotes'] });");
});
