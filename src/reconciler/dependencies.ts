/**
 * What a checked-out commit needs before its app can run: its npm dependencies, installed
 * from its lockfile with `npm ci`, once per lockfile. An install is kept in a cache folder
 * named by a hash of the lockfile (and of what else shapes the installed files), and the
 * project's `node_modules` is a link to it, so a later commit with the same lockfile (or a
 * return to an earlier one) links again without installing. The decisions are here; the
 * command line's installer acts on them.
 */
import { createHash } from 'node:crypto';
import { FleetformError } from '../domain/errors';

/** A lockfile a project may hold, and the package manager that wrote it. */
export interface Lockfile {
  readonly file: string;
  readonly manager: 'npm' | 'yarn' | 'pnpm' | 'bun';
}

/** The lockfiles looked for, npm's first: the only ones the reconciler installs from. */
export const LOCKFILES: readonly Lockfile[] = [
  { file: 'package-lock.json', manager: 'npm' },
  { file: 'npm-shrinkwrap.json', manager: 'npm' },
  { file: 'yarn.lock', manager: 'yarn' },
  { file: 'pnpm-lock.yaml', manager: 'pnpm' },
  { file: 'bun.lock', manager: 'bun' },
  { file: 'bun.lockb', manager: 'bun' },
];

/** What the installer found of one folder: the project's, or one of its parents up to the checkout's root. */
export interface FolderSurvey {
  readonly dir: string;
  /** Its package.json declares dependencies (any of dependencies, devDependencies, optionalDependencies); undefined without a package.json. */
  readonly declaresDependencies: boolean | undefined;
  /** The names of the LOCKFILES it holds. */
  readonly lockfiles: readonly string[];
  /** Its `node_modules`: none, a link (the installer's), or a folder the commit tracks in git (committed) or not (left by an install that did not finish). */
  readonly nodeModules: 'none' | 'link' | 'committed' | 'leftover';
}

/** What is done about a commit's dependencies. */
export type DependencyStep =
  | { readonly kind: 'nothing'; readonly why: string }
  | { readonly kind: 'committed'; readonly dir: string }
  | { readonly kind: 'no-lockfile'; readonly dir: string }
  | { readonly kind: 'link'; readonly dir: string; readonly lockfile: string; readonly key: string }
  | { readonly kind: 'install'; readonly dir: string; readonly lockfile: string; readonly key: string; readonly leftover: boolean };

/** How the installer installs: whether the dependencies' install scripts run. */
export interface InstallSettings {
  readonly scripts: boolean;
}

export class DependencyError extends FleetformError {}

/**
 * The folder whose lockfile installs the project: the nearest of the project's folder and its
 * parents (`folders`, nearest first) holding a lockfile or committed node_modules, else the
 * nearest with a package.json.
 */
export function installFolder(folders: readonly FolderSurvey[]): FolderSurvey | undefined {
  return (
    folders.find((f) => f.lockfiles.length > 0 || f.nodeModules === 'committed') ??
    folders.find((f) => f.declaresDependencies !== undefined)
  );
}

/** The key of an install: the lockfile's content, the manager, whether scripts ran, and the Node ABI and platform they ran for. */
export function installKey(
  lockfile: Buffer | string,
  settings: InstallSettings,
  runtime: { abi: string; platform: string; arch: string },
): string {
  return createHash('sha256')
    .update(`npm\0scripts=${settings.scripts}\0${runtime.abi}\0${runtime.platform}\0${runtime.arch}\0`)
    .update(lockfile)
    .digest('hex')
    .slice(0, 32);
}

/**
 * What to do for the folder found: nothing without dependencies, nothing more with committed
 * node_modules, link the cached install of this lockfile's key, or install it; a lockfile of
 * another package manager, or package.json without a lockfile, is refused with the fix.
 */
export function dependencyStep(found: FolderSurvey | undefined, key: string | undefined, cached: boolean): DependencyStep {
  if (!found) return { kind: 'nothing', why: 'no package.json' };
  if (found.nodeModules === 'committed') return { kind: 'committed', dir: found.dir };
  const npmLock = found.lockfiles.find((f) => LOCKFILES.some((l) => l.file === f && l.manager === 'npm'));
  if (npmLock && key !== undefined)
    return cached
      ? { kind: 'link', dir: found.dir, lockfile: npmLock, key }
      : { kind: 'install', dir: found.dir, lockfile: npmLock, key, leftover: found.nodeModules === 'leftover' };
  const other = found.lockfiles[0];
  if (other !== undefined) throw unsupportedLockfile(found.dir, other);
  if (found.declaresDependencies) return { kind: 'no-lockfile', dir: found.dir };
  return { kind: 'nothing', why: 'package.json declares no dependencies' };
}

function unsupportedLockfile(dir: string, file: string): DependencyError {
  const manager = LOCKFILES.find((l) => l.file === file)?.manager ?? 'another package manager';
  return new DependencyError(`the project holds ${file} (${manager}); the reconciler installs dependencies from package-lock.json only`, {
    path: `${dir}/${file}`,
    hint: 'commit a package-lock.json (`npm install --package-lock-only`), or commit node_modules, or start the reconciler with --install off and make the dependencies reachable yourself',
  });
}

/** What `no-lockfile` says: dependencies declared, none installed. */
export function noLockfileText(dir: string): { message: string; hint: string } {
  return {
    message: `${dir}/package.json declares dependencies but the commit has no package-lock.json: nothing is installed`,
    hint: 'run `npm install` and commit package-lock.json, so the reconciler installs exactly those versions with `npm ci`',
  };
}

/** The command that installs from an npm lockfile: `npm ci`, without the audit and funding requests, and without install scripts unless allowed. */
export function installCommand(settings: InstallSettings): { readonly command: string; readonly args: readonly string[] } {
  return { command: 'npm', args: ['ci', '--no-audit', '--no-fund', '--loglevel=error', ...(settings.scripts ? [] : ['--ignore-scripts'])] };
}

/** The cached installs to remove: all but the `keep` used last, never the one in use. */
export function prunedInstalls(entries: readonly { key: string; usedAt: number }[], keep: number, inUse: string): string[] {
  return [...entries]
    .filter((e) => e.key !== inUse)
    .sort((a, b) => b.usedAt - a.usedAt)
    .slice(Math.max(0, keep - 1))
    .map((e) => e.key);
}
