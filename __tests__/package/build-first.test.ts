/** The global setup that rebuilds dist/ before the suites when any input of the build is newer. */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS script without type declarations
const { staleness } = require('../../scripts/build-first.js') as { staleness: (root: string) => string | undefined };

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'fleetform-build-first-'));
  mkdirSync(join(root, 'src', 'cli'), { recursive: true });
  mkdirSync(join(root, 'dist'));
  mkdirSync(join(root, 'scripts'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Writes a file dated `seconds` after a fixed moment. */
function file(relative: string, seconds: number): void {
  writeFileSync(join(root, relative), 'x');
  const at = new Date(Date.UTC(2026, 0, 1) + seconds * 1000);
  utimesSync(join(root, relative), at, at);
}

test('a build written after every input is current', () => {
  file('src/cli/main.ts', 0);
  file('tsconfig.build.json', 1);
  file('scripts/esm-entry.js', 2);
  file('dist/index.mjs', 10);
  expect(staleness(root)).toBeUndefined();
});

test('a source changed after the build, however deep, makes it stale and is named', () => {
  file('src/cli/main.ts', 0);
  file('dist/index.mjs', 10);
  file('src/cli/run-app.ts', 20);
  expect(staleness(root)).toBe(`${join('src', 'cli', 'run-app.ts')} changed after the last build`);
});

test('a changed build setting makes it stale', () => {
  file('src/cli/main.ts', 0);
  file('dist/index.mjs', 10);
  file('tsconfig.build.json', 20);
  expect(staleness(root)).toBe('tsconfig.build.json changed after the last build');
});

test('a missing build is stale', () => {
  file('src/cli/main.ts', 0);
  expect(staleness(root)).toBe(`${join('dist', 'index.mjs')} is missing`);
});
