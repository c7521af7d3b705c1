const { availableParallelism } = require('node:os');
const { tiers } = require('./scripts/test-tiers');

/** What every tier shares. */
const shared = {
  testEnvironment: 'node',
  roots: ['<rootDir>/__tests__'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }],
  },
  // Property tests: a fixed seed in CI, PROPERTY_SEED to repeat one anywhere.
  setupFiles: ['<rootDir>/scripts/property-seed.js'],
};

// Three tiers (scripts/test-tiers.js places each suite by the real parts it starts):
// `unit` is `npm run test:unit`; `npm test` runs all three.
const suites = tiers();
const tier = (name, extra = {}) => ({ ...shared, displayName: name, testMatch: suites[name].map((file) => `<rootDir>/${file}`), ...extra });

/** @type {import('jest').Config} */
module.exports = {
  // One worker per core and at least three (jest would run one on two cores): an end-to-end
  // suite spends much of its time waiting on a rollout's gate, a schedule or a child process,
  // so two workers on two cores leave a fifth of the processor idle. --maxWorkers overrides it.
  maxWorkers: Math.max(3, availableParallelism()),
  testTimeout: 30000,
  // Suites that run bin/fleetform.js load dist/: it is rebuilt first when src/ is newer.
  globalSetup: '<rootDir>/scripts/build-first.js',
  // The longest suites first, also on a clean clone (scripts/suite-sequencer.js).
  testSequencer: '<rootDir>/scripts/suite-sequencer.js',
  projects: [
    tier('unit'),
    tier('integration'),
    // The package is packed once for the package suites, only when one of them runs.
    tier('package', { globalSetup: '<rootDir>/scripts/pack-once.js', globalTeardown: '<rootDir>/scripts/pack-once-teardown.js' }),
  ],
};
