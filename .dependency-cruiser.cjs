/**
 * Import rules of src/, checked by __tests__/architecture/dependencies.test.ts:
 * no import cycle at run time (type-only imports are erased and load nothing), and each
 * layer imports only the layers below it: domain < api < constructs < engine < provider,
 * the dashboard over the engine (it reads state and the service), the reconciler over the
 * engine and the dashboard (it drives the engine and serves the dashboard), the emulator beside
 * them (over domain and api) and the command line on top.
 *
 * Inside the engine and the emulator, each subfolder and each file at the folder's root stands
 * on a floor (`ENGINE_FLOORS`, `EMULATOR_FLOORS`, top floor first) and imports only what stands
 * on a floor below its own: no import runs back up, and no two folders import each other. A new
 * file or folder there is given a floor here. Other layers reach the engine only through its
 * face (`ENGINE_FACE`): the entry files on its top floor, and its redactor.
 */
const layer = (name, mayImport) => ({
  name: `layer-${name}`,
  comment: `src/${name} imports only ${mayImport.length ? mayImport.join(', ') : 'nothing else in src'}`,
  severity: 'error',
  from: { path: `^src/${name}/` },
  to: { path: '^src/', pathNot: [`^src/${name}/`, ...mayImport.map((m) => `^src/${m}/`)] },
});

/** The engine's entry files, on its top floor: each re-exports what other layers take for one purpose. */
const ENGINE_ENTRIES = [
  'index.ts', // running the engine: plan, apply, state, rollouts, windows, renderers, outputs
  'readings.ts', // what the dashboard and the command line read of machines: health, module cards, config views, runs
  'provider-core.ts', // the planning core and schema the Terraform provider maps its calls onto
  'project-code.ts', // the code fleetform writes: a new project, an adopted organization
  'pg-state.ts', // the PostgreSQL state backend, loaded only when a project's state is there
];

/**
 * What other layers may import of the engine: its entries, and the redactor every text fleetform
 * sends out passes (small, so a command's error path loads no more of the engine).
 */
const ENGINE_FACE = [...ENGINE_ENTRIES, 'redactor.ts'];

/** The engine's floors, top first: a folder (`name/`) or a root file imports only from the floors below. */
const ENGINE_FLOORS = [
  ENGINE_ENTRIES,
  ['engine.ts', 'windows/'],
  ['apply/', 'render/'],
  ['adopt/', 'rollout/'],
  ['kinds/', 'plan/'],
  ['secret-references.ts', 'target.ts', 'desire.ts'],
  ['kind.ts', 'outputs.ts', 'mask.ts'],
  ['terraform-schema.ts', 'reference-docs.ts', 'health/', 'state/', 'plan-model.ts'],
  ['kind-declaration.ts', 'fragment-fetch.ts', 'plan-notes.ts', 'desired/', 'path-values.ts', 'shown-value.ts', 'diff.ts'],
  ['loop-stall.ts', 'apply-outcome.ts', 'redactor.ts', 'json.ts', 'graph.ts', 'map-limited.ts', 'read-concurrency.ts', 'project/'],
];

/** The emulator's floors, top first. */
const EMULATOR_FLOORS = [
  ['index.ts'],
  ['seed.ts'],
  ['rpc/'],
  ['sim/'],
  ['logic/'],
  ['clock/', 'auth/'],
  ['store/'],
  ['db/', 'server/', 'credentials.ts'],
];

const escaped = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The path pattern of one room of `src/<layerName>/`: a subfolder (`name/`) or a root file. */
const room = (layerName, name) => `^src/${layerName}/${escaped(name)}${name.endsWith('/') ? '' : '$'}`;

/** One rule per room: it imports, inside its layer, only itself and the rooms on lower floors. */
function floorRules(layerName, floors) {
  return floors.flatMap((rooms, floor) => {
    const below = floors.slice(floor + 1).flat();
    return rooms.map((name) => ({
      name: `${layerName}-floors`,
      comment: `src/${layerName}/${name} imports, inside the ${layerName}, only what stands on a floor below it: ${below.join(', ') || 'nothing'}`,
      severity: 'error',
      from: { path: room(layerName, name) },
      to: { path: `^src/${layerName}/`, pathNot: [name, ...below].map((n) => room(layerName, n)) },
    }));
  });
}

/** A file of the layer on no floor: it is given one in this file. */
function unplaced(layerName, floors) {
  return {
    name: `${layerName}-floors`,
    comment: `every subfolder and root file of src/${layerName} stands on a floor: add it to the floors in .dependency-cruiser.cjs`,
    severity: 'error',
    from: { path: `^src/${layerName}/`, pathNot: floors.flat().map((n) => room(layerName, n)) },
    to: { path: '^src/' },
  };
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'an import cycle makes load order matter (a module may see another half-initialized) and modules inseparable; type-only imports count',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    layer('domain', []),
    layer('api', ['domain']),
    layer('constructs', ['domain', 'api']),
    layer('engine', ['domain', 'api', 'constructs']),
    layer('provider', ['domain', 'api', 'constructs', 'engine']),
    layer('reconciler', ['domain', 'api', 'constructs', 'engine', 'dashboard']),
    layer('emulator', ['domain', 'api']),
    layer('dashboard', ['domain', 'api', 'constructs', 'engine']),
    {
      name: 'engine-face',
      comment: `another layer imports the engine only through its face: ${ENGINE_FACE.map((f) => `src/engine/${f}`).join(', ')}`,
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/engine/' },
      to: { path: '^src/engine/', pathNot: ENGINE_FACE.map((n) => room('engine', n)) },
    },
    ...floorRules('engine', ENGINE_FLOORS),
    unplaced('engine', ENGINE_FLOORS),
    ...floorRules('emulator', EMULATOR_FLOORS),
    unplaced('emulator', EMULATOR_FLOORS),
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['node_modules', '^src/api/generated/'] },
  },
};
