/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/__tests__'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }],
  },
  testTimeout: 30000,
  // Suites that run bin/fleetform.js load dist/: it is rebuilt first when src/ is newer.
  globalSetup: '<rootDir>/scripts/build-first.js',
  // Property tests: a fixed seed in CI, PROPERTY_SEED to repeat one anywhere.
  setupFiles: ['<rootDir>/scripts/property-seed.js'],
};
