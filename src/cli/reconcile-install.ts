/**
 * The reconciler's installer of a checkout's npm dependencies: it surveys the project's
 * folder and its parents up to the checkout's root, and does what dependencyStep decides:
 * `npm ci` in the lockfile's folder (in a process group of its own, ended whole at the
 * timeout, given only the environment an app gets), the installed node_modules moved into
 * the cache under the install's key, and a link to it left in its place.
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { processRedactor, type Redactor } from '../engine/redactor';
import {
  DependencyError,
  dependencyStep,
  installCommand,
  installFolder,
  installKey,
  LOCKFILES,
  noLockfileText,
  prunedInstalls,
  type DependencyStep,
  type FolderSurvey,
  type InstallSettings,
} from '../reconciler/dependencies';
import type { DependencyInstaller, DependencyOutcome } from '../reconciler/project';
import { passesToApp } from './app-environment';
import { startAppProcess } from './app-process';

export interface InstallerOptions extends InstallSettings {
  /** Where installs are kept, one folder per key. */
  readonly cacheDir: string;
  /** How long an install may take; then its process group is ended and the cycle fails. */
  readonly timeoutMs: number;
  /** The reconciler's environment: the install gets only what an app gets, and the variables passed with --pass-env. */
  readonly env: NodeJS.ProcessEnv;
  readonly passEnv: readonly string[];
  /** How many cached installs are kept (the one in use among them). */
  readonly keep?: number;
  readonly redactor?: Redactor;
}

const NODE_MODULES = 'node_modules';
const DEFAULT_KEEP = 3;
/** How much of the install's stderr an error quotes. */
const QUOTED_LINES = 8;

/** The install's environment: what an app gets of the reconciler's, and what the operator passes. */
export function installEnvironment(parent: NodeJS.ProcessEnv, passEnv: readonly string[]): NodeJS.ProcessEnv {
  const asked = new Set(passEnv);
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(parent)) if (passesToApp(key, asked)) env[key] = value;
  env.npm_config_update_notifier = 'false';
  return env;
}

function gitTracks(dir: string, file: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile('git', ['ls-files', '--', file], { cwd: dir, maxBuffer: 1024 * 1024 }, (err, stdout) => resolve(!err && stdout.trim() !== ''));
  });
}

async function surveyFolder(dir: string): Promise<FolderSurvey> {
  const names = new Set(await fs.readdir(dir).catch(() => [] as string[]));
  let declaresDependencies: boolean | undefined;
  if (names.has('package.json')) {
    const text = await fs.readFile(path.join(dir, 'package.json'), 'utf8').catch(() => '{}');
    let pkg: Record<string, unknown> = {};
    try {
      pkg = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new DependencyError('package.json is not JSON', { path: path.join(dir, 'package.json'), hint: 'fix the file and commit it' });
    }
    declaresDependencies = ['dependencies', 'devDependencies', 'optionalDependencies'].some(
      (k) => pkg[k] !== null && typeof pkg[k] === 'object' && Object.keys(pkg[k]).length > 0,
    );
  }
  const stat = await fs.lstat(path.join(dir, NODE_MODULES)).catch(() => undefined);
  const nodeModules = !stat ? 'none' : stat.isSymbolicLink() ? 'link' : (await gitTracks(dir, NODE_MODULES)) ? 'committed' : 'leftover';
  return { dir, declaresDependencies, lockfiles: LOCKFILES.map((l) => l.file).filter((f) => names.has(f)), nodeModules };
}

/** The project's folder and its parents up to `root`, nearest first. */
function foldersUpTo(dir: string, root: string): string[] {
  const out = [path.resolve(dir)];
  const top = path.resolve(root);
  while (out[out.length - 1] !== top && path.dirname(out[out.length - 1] ?? top) !== out[out.length - 1]) {
    const up = path.dirname(out[out.length - 1] ?? top);
    if (path.relative(top, up).startsWith('..')) break;
    out.push(up);
  }
  return out;
}

async function exists(file: string): Promise<boolean> {
  return fs.lstat(file).then(
    () => true,
    () => false,
  );
}

/** A folder moved: renamed, or copied and removed when the cache is on another file system. */
async function move(from: string, to: string): Promise<void> {
  try {
    await fs.rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await fs.cp(from, to, { recursive: true, verbatimSymlinks: true });
    await fs.rm(from, { recursive: true, force: true });
  }
}

export function dependencyInstaller(options: InstallerOptions): DependencyInstaller {
  const redactor = options.redactor ?? processRedactor;
  const env = installEnvironment(options.env, options.passEnv);
  const runtime = { abi: process.versions.modules, platform: process.platform, arch: process.arch };
  const cached = (key: string): string => path.join(options.cacheDir, key, NODE_MODULES);

  /** `node_modules` of `dir` made a link to the cached install of `key`, whatever was there before. */
  const link = async (dir: string, key: string): Promise<void> => {
    const at = path.join(dir, NODE_MODULES);
    await fs.rm(at, { recursive: true, force: true });
    await fs.symlink(cached(key), at, process.platform === 'win32' ? 'junction' : 'dir');
    const now = new Date();
    await fs.utimes(path.join(options.cacheDir, key), now, now).catch(() => undefined);
  };

  const prune = async (inUse: string): Promise<void> => {
    const names = await fs.readdir(options.cacheDir).catch(() => [] as string[]);
    const entries = await Promise.all(
      names
        .filter((n) => /^[0-9a-f]{32}$/.test(n))
        .map(async (key) => ({ key, usedAt: (await fs.stat(path.join(options.cacheDir, key))).mtimeMs })),
    );
    for (const key of prunedInstalls(entries, options.keep ?? DEFAULT_KEEP, inUse))
      await fs.rm(path.join(options.cacheDir, key), { recursive: true, force: true });
  };

  const install = async (step: Extract<DependencyStep, { kind: 'install' }>): Promise<number> => {
    const at = path.join(step.dir, NODE_MODULES);
    // A link is removed, never followed: npm ci would empty the cached install it points at.
    await fs.rm(at, { recursive: true, force: true });
    const { command, args } = installCommand(options);
    const started = Date.now();
    const exit = await startAppProcess([command, ...args].join(' '), step.dir, env, options.timeoutMs).exit;
    if (exit.code !== 0 || exit.timedOutMs !== undefined) {
      await fs.rm(at, { recursive: true, force: true });
      throw installFailed(step, exit, redactor);
    }
    const partial = path.join(options.cacheDir, `${step.key}.partial-${process.pid}`);
    await fs.rm(partial, { recursive: true, force: true });
    await fs.mkdir(partial, { recursive: true });
    await move(at, path.join(partial, NODE_MODULES));
    // Another reconciler sharing the cache may have installed the same key meanwhile: its install is as good.
    if (await exists(path.join(options.cacheDir, step.key))) await fs.rm(partial, { recursive: true, force: true });
    else await fs.rename(partial, path.join(options.cacheDir, step.key));
    return Date.now() - started;
  };

  return {
    async prepare(dir, root): Promise<DependencyOutcome> {
      const folders = await Promise.all(foldersUpTo(dir, root).map(surveyFolder));
      const found = installFolder(folders);
      const lock = found?.lockfiles.find((f) => LOCKFILES.some((l) => l.file === f && l.manager === 'npm'));
      const key = found && lock ? installKey(await fs.readFile(path.join(found.dir, lock)), options, runtime) : undefined;
      const step = dependencyStep(found, key, key !== undefined && (await exists(cached(key))));
      const where = (d: string): string => path.relative(root, d) || '.';
      switch (step.kind) {
        case 'nothing':
          return { level: 'info', message: 'no dependencies to install', fields: { why: step.why } };
        case 'committed':
          return {
            level: 'info',
            message: 'dependencies committed with the project, used as they are',
            fields: { folder: where(step.dir) },
          };
        case 'no-lockfile': {
          const said = noLockfileText(where(step.dir));
          return { level: 'warn', message: said.message, fields: { hint: said.hint } };
        }
        case 'link':
          await link(step.dir, step.key);
          return {
            level: 'info',
            message: 'dependencies installed before for this lockfile, linked',
            fields: { lockfile: step.lockfile, key: step.key },
          };
        case 'install': {
          await fs.mkdir(options.cacheDir, { recursive: true });
          const ms = await install(step);
          await link(step.dir, step.key);
          await prune(step.key);
          return {
            level: 'info',
            message: `dependencies installed with npm ci${options.scripts ? '' : ' --ignore-scripts'}`,
            fields: { lockfile: step.lockfile, key: step.key, seconds: Number((ms / 1000).toFixed(1)) },
          };
        }
      }
    },
  };
}

function installFailed(
  step: Extract<DependencyStep, { kind: 'install' }>,
  exit: { code: number | null; stderr: string; timedOutMs?: number },
  redactor: Redactor,
): DependencyError {
  const said = redactor.redact(
    exit.stderr
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '')
      .slice(-QUOTED_LINES)
      .join(' | '),
  );
  const where = path.join(step.dir, step.lockfile);
  if (exit.timedOutMs !== undefined)
    return new DependencyError(`npm ci ran longer than ${exit.timedOutMs / 1000}s and was ended${said ? `: ${said}` : ''}`, {
      path: where,
      hint: 'give it longer with --install-timeout, or check that the registry is reachable from this machine',
    });
  return new DependencyError(`npm ci failed (exit ${exit.code ?? 'signal'})${said ? `: ${said}` : ''}`, {
    path: where,
    hint: `check that ${step.lockfile} matches package.json (run \`npm install\` and commit both), that the registry is reachable, and, for a dependency that must build, --install-scripts`,
  });
}
