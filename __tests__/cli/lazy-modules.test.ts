/**
 * Every command line loads the whole command set to parse its arguments: each command's
 * name, flags and help. What a command runs (the engine, the service client, the state
 * backends, the emulator, the reconciler, the dashboard, zod's schemas) is loaded by its
 * action, when it runs, not at every start.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const DIST = path.join(ROOT, 'dist');

/** The files a fresh node process has loaded after requiring a compiled module of the command line. */
function loadedAfterRequiring(file: string): string[] {
  const script = `require(${JSON.stringify(path.join(DIST, 'cli', file))}); process.stdout.write(JSON.stringify(Object.keys(require.cache)));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as string[];
}

const inDist = (...parts: string[]): string => path.join('dist', ...parts);
const aPackage = (name: string): string => `${path.sep}node_modules${path.sep}${name}${path.sep}`;

/** What registering the commands must not load: each part is found in a loaded file's path. */
const RUN_ONLY = [
  // Layers a command runs.
  inDist('engine') + path.sep,
  inDist('api') + path.sep,
  inDist('reconciler') + path.sep,
  inDist('dashboard') + path.sep,
  inDist('provider') + path.sep,
  inDist('emulator', 'index.js'),
  inDist('emulator', 'rpc') + path.sep,
  inDist('emulator', 'credentials.js'),
  inDist('domain', 'index.js'),
  // The command line's own working parts.
  inDist('cli', 'workspace.js'),
  inDist('cli', 'connection.js'),
  inDist('cli', 'state-backend.js'),
  inDist('cli', 'app-synthesis.js'),
  inDist('cli', 'rollout-output.js'),
  inDist('cli', 'reconcile-project.js'),
  '-run.js',
  // Libraries a command runs.
  aPackage('zod'),
  aPackage('semver'),
  aPackage('@connectrpc'),
  aPackage('@bufbuild'),
  aPackage('@viamrobotics'),
  aPackage('@grpc'),
  aPackage('pg'),
  aPackage('better-sqlite3'),
  aPackage('prom-client'),
  aPackage('undici'),
  aPackage('cron-parser'),
];

/** The run-only files among `loaded`. */
function runOnlyAmong(loaded: readonly string[]): string[] {
  return loaded.filter((f) => RUN_ONLY.some((part) => f.includes(part)));
}

test('loading the command line registers every command and loads none of what the commands run', () => {
  const loaded = loadedAfterRequiring('main.js');
  // The check itself is sound: every command's registration and the parser are there.
  const registrations = fs
    .readdirSync(path.join(DIST, 'cli', 'commands'))
    .filter((f) => f.endsWith('.js') && !f.endsWith('-run.js') && f !== 'apply-plan.js');
  expect(registrations).toContain('plan.js');
  for (const file of registrations) expect(loaded).toContain(path.join(DIST, 'cli', 'commands', file));
  expect(loaded.some((f) => f.includes(aPackage('commander')))).toBe(true);
  expect(runOnlyAmong(loaded)).toEqual([]);
});

test('a command line that runs no app (bin/fleetform.js starts it early) loads none of the synthesis', () => {
  expect(runOnlyAmong(loadedAfterRequiring('early-start.js'))).toEqual([]);
});

test('the check finds what a command runs once it is loaded', () => {
  const loaded = loadedAfterRequiring(path.join('commands', 'plan-run.js'));
  for (const part of [inDist('engine') + path.sep, inDist('cli', 'workspace.js'), aPackage('zod'), aPackage('@connectrpc')])
    expect(loaded.filter((f) => f.includes(part)).length).toBeGreaterThan(0);
  // The engine's update policies load semver's functions one by one, not its index (all of semver).
  expect(loaded.some((f) => f.includes(aPackage('semver')))).toBe(true);
  expect(loaded.filter((f) => f.endsWith(path.join('node_modules', 'semver', 'index.js')))).toEqual([]);
});
