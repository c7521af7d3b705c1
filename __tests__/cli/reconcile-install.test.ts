/**
 * The reconciler's installer on real folders and processes, with an `npm` of the test's own
 * first on PATH (one that installs, one that fails saying a secret, one that hangs with a
 * child): what is cached, what is linked, what a failure says, that a timeout ends the
 * install's whole process group, and that node_modules a git repository tracks is left as it is.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { dependencyInstaller } from '../../src/cli/reconcile-install';
import { Redactor } from '../../src/engine/redactor';
import { DependencyError } from '../../src/reconciler/dependencies';

const SECRET = 'registry-token-0123456789abcdef';
let dir: string;

/** A fake `npm` in its own folder, its body a shell script. */
function fakeNpm(name: string, body: string): string {
  const bin = path.join(dir, `bin-${name}`);
  mkdirSync(bin);
  writeFileSync(path.join(bin, 'npm'), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return bin;
}

function project(name: string, files: Record<string, string>): string {
  const root = path.join(dir, name);
  mkdirSync(root);
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(root, file), text);
  return root;
}

const LOCKED = { 'package.json': JSON.stringify({ dependencies: { cdktf: '0.21.0' } }), 'package-lock.json': '{"lockfileVersion":3}' };

function installer(bin: string, cache: string, timeoutMs = 60_000): ReturnType<typeof dependencyInstaller> {
  return dependencyInstaller({
    cacheDir: cache,
    timeoutMs,
    scripts: false,
    env: { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, HOME: dir, FLEETFORM_API_KEY: 'never-passed' },
    passEnv: [],
    redactor: new Redactor().add(SECRET),
  });
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ff-install-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('installs once per lockfile, then links; the install gets the arguments and none of fleetform variables', async () => {
  const bin = fakeNpm(
    'ok',
    'echo "$@" > "$PWD/../args-$$"; mkdir -p node_modules/cdktf; echo "${FLEETFORM_API_KEY:-unset}" > node_modules/cdktf/seen; echo installed >> "$PWD/../count"',
  );
  const cache = path.join(dir, 'cache-ok');
  const root = project('ok', LOCKED);
  const first = await installer(bin, cache).prepare(root, root);
  expect(first.message).toBe('dependencies installed with npm ci --ignore-scripts');
  const [key] = readdirSync(cache);
  expect(key).toMatch(/^[0-9a-f]{32}$/);
  expect(lstatSync(path.join(root, 'node_modules')).isSymbolicLink()).toBe(true);
  expect(readFileSync(path.join(root, 'node_modules', 'cdktf', 'seen'), 'utf8').trim()).toBe('unset');
  const args = readdirSync(dir).find((f) => f.startsWith('args-'));
  expect(readFileSync(path.join(dir, args ?? ''), 'utf8').trim()).toBe('ci --no-audit --no-fund --loglevel=error --ignore-scripts');
  const again = await installer(bin, cache).prepare(root, root);
  expect(again.message).toBe('dependencies installed before for this lockfile, linked');
  expect(readFileSync(path.join(dir, 'count'), 'utf8').trim().split('\n')).toHaveLength(1);
});

test('a failed install is not cached, and its error quotes npm redacted', async () => {
  const bin = fakeNpm('fails', `mkdir -p node_modules/half; echo "npm error 401 Unauthorized: token ${SECRET}" >&2; exit 1`);
  const cache = path.join(dir, 'cache-fails');
  const root = project('fails', LOCKED);
  const err = await installer(bin, cache)
    .prepare(root, root)
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(err).toBeInstanceOf(DependencyError);
  const e = err as DependencyError;
  expect(e.message).toContain('npm ci failed (exit 1): npm error 401 Unauthorized: token [redacted]');
  expect(e.message).not.toContain(SECRET);
  expect(e.path).toBe(path.join(root, 'package-lock.json'));
  expect(readdirSync(cache)).toEqual([]);
  expect(existsSync(path.join(root, 'node_modules'))).toBe(false);
});

test('an install past its timeout is ended with the processes it started', async () => {
  const pidFile = path.join(dir, 'child.pid');
  const bin = fakeNpm('hangs', `sleep 300 & echo $! > ${JSON.stringify(pidFile)}; wait`);
  const cache = path.join(dir, 'cache-hangs');
  const root = project('hangs', LOCKED);
  const started = Date.now();
  await expect(installer(bin, cache, 1000).prepare(root, root)).rejects.toThrow('npm ci ran longer than 1s and was ended');
  expect(Date.now() - started).toBeLessThan(30_000);
  const child = Number(readFileSync(pidFile, 'utf8').trim());
  const alive = (): boolean => {
    try {
      process.kill(child, 0);
      return true;
    } catch {
      return false;
    }
  };
  for (let i = 0; i < 100 && alive(); i++) await new Promise((r) => setTimeout(r, 50));
  expect(alive()).toBe(false);
  expect(readdirSync(cache)).toEqual([]);
});

test('without a lockfile it warns with the fix; another manager is refused; no package.json, nothing', async () => {
  const bin = fakeNpm('unused', 'exit 99');
  const cache = path.join(dir, 'cache-none');
  const bare = project('bare', { 'package.json': JSON.stringify({ dependencies: { cdktf: '0.21.0' } }) });
  const warned = await installer(bin, cache).prepare(bare, bare);
  expect(warned.level).toBe('warn');
  expect(warned.message).toContain('declares dependencies but the commit has no package-lock.json');
  const yarn = project('yarn', { 'package.json': LOCKED['package.json'], 'yarn.lock': '' });
  await expect(installer(bin, cache).prepare(yarn, yarn)).rejects.toThrow('holds yarn.lock (yarn)');
  const plain = project('plain', { 'main.js': '' });
  expect((await installer(bin, cache).prepare(plain, plain)).message).toBe('no dependencies to install');
});

test('node_modules the commit tracks in git is used as it is; one git does not track is an unfinished install, replaced', async () => {
  const bin = fakeNpm('replaces', 'rm -rf node_modules; mkdir -p node_modules/fresh');
  const cache = path.join(dir, 'cache-git');
  const root = project('committed', LOCKED);
  mkdirSync(path.join(root, 'node_modules', 'cdktf'), { recursive: true });
  writeFileSync(path.join(root, 'node_modules', 'cdktf', 'index.js'), '');
  const git = (...args: string[]): string =>
    execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', ...args], {
      cwd: root,
      encoding: 'utf8',
    });
  git('init', '--quiet');
  git('add', '-A');
  git('commit', '--quiet', '-m', 'with node_modules');
  const used = await installer(bin, cache).prepare(root, root);
  expect(used.message).toBe('dependencies committed with the project, used as they are');
  expect(existsSync(path.join(root, 'node_modules', 'cdktf', 'index.js'))).toBe(true);
  git('rm', '-r', '--cached', '--quiet', 'node_modules');
  git('commit', '--quiet', '-m', 'node_modules no longer tracked');
  const replaced = await installer(bin, cache).prepare(root, root);
  expect(replaced.message).toBe('dependencies installed with npm ci --ignore-scripts');
  expect(readdirSync(path.join(root, 'node_modules'))).toEqual(['fresh']);
});
