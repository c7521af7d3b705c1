/**
 * Import rules of src/, checked by __tests__/architecture/dependencies.test.ts:
 * no import cycle at run time (type-only imports are erased and load nothing), and each
 * layer imports only the layers below it: domain < api < constructs < engine < provider,
 * the dashboard over the engine (it reads state and the service), the reconciler over the
 * engine and the dashboard (it drives the engine and serves the dashboard), the emulator beside
 * them (over domain and api) and the command line on top.
 */
const layer = (name, mayImport) => ({
  name: `layer-${name}`,
  comment: `src/${name} imports only ${mayImport.length ? mayImport.join(', ') : 'nothing else in src'}`,
  severity: 'error',
  from: { path: `^src/${name}/` },
  to: { path: '^src/', pathNot: [`^src/${name}/`, ...mayImport.map((m) => `^src/${m}/`)] },
});

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
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['node_modules', '^src/api/generated/'] },
  },
};
