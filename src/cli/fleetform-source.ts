/**
 * Where the running fleetform comes from, and the npm spec that installs that same
 * fleetform into a project: fleetform is not on the npm registry, so `npm install fleetform`
 * is never a command that runs as printed.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { type FleetformSource, fleetformSpecFor, isLocalSpec } from '../engine/project-code';

/** The folder of the running fleetform package (this file is dist/cli/fleetform-source.js, or src/cli under ts-jest). */
const PACKAGE_ROOT = path.resolve(__dirname, '..', '..');

type Manifest = Partial<Record<'dependencies' | 'devDependencies', Record<string, string>>>;

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** How the project holding node_modules/fleetform named it: its package.json, else npm's record of the install. */
function installedSpec(projectDir: string): string | undefined {
  const manifest = readJson(path.join(projectDir, 'package.json')) as Manifest | undefined;
  const named = manifest?.dependencies?.fleetform ?? manifest?.devDependencies?.fleetform;
  if (named) return named;
  const lock = readJson(path.join(projectDir, 'node_modules', '.package-lock.json')) as
    { packages?: Record<string, { resolved?: string }> } | undefined;
  return lock?.packages?.['node_modules/fleetform']?.resolved;
}

/** Where the fleetform in `packageRoot` comes from: a spec given (in `cwd`), a checkout, or the project that installed it. */
export function fleetformSource(cwd: string, given?: string, packageRoot: string = PACKAGE_ROOT): FleetformSource {
  if (given !== undefined) return { kind: 'given', spec: given, cwd };
  const parts = packageRoot.split(path.sep);
  const at = parts.lastIndexOf('node_modules');
  if (at < 0) return { kind: 'checkout', dir: packageRoot };
  const projectDir = parts.slice(0, at).join(path.sep) || path.sep;
  const spec = installedSpec(projectDir);
  return spec ? { kind: 'installed', projectDir, spec } : { kind: 'unknown', packageDir: packageRoot };
}

/** What `npm install` takes when fleetform cannot tell where it came from. */
export const UNKNOWN_FLEETFORM_SPEC = '/path/to/fleetform-checkout-or-tarball';

/** A local source's absolute path, for a command that may run in any folder. */
function absolutePath(source: FleetformSource): string | undefined {
  if (source.kind === 'checkout') return source.dir;
  if (source.kind === 'installed' && isLocalSpec(source.spec)) return path.resolve(source.projectDir, source.spec.replace(/^file:/, ''));
  if (source.kind === 'given' && isLocalSpec(source.spec)) return path.resolve(source.cwd, source.spec.replace(/^file:/, ''));
  return undefined;
}

/**
 * The spec that installs the running fleetform into a project: run in `projectDir`, a local
 * one by its path from there; without it, by its absolute path; a version range as
 * `fleetform@RANGE`; UNKNOWN_FLEETFORM_SPEC when it cannot be told.
 */
export function installSpecFor(source: FleetformSource, projectDir?: string): string {
  if (source.kind === 'unknown') return UNKNOWN_FLEETFORM_SPEC;
  const spec = projectDir === undefined ? (absolutePath(source) ?? fleetformSpecFor(source, '.')) : fleetformSpecFor(source, projectDir);
  // A path, URL or git spec installs as written; a version range names the package.
  return spec.startsWith('file:') || /[:/]/.test(spec) ? spec : `fleetform@${spec}`;
}

/** The spec installing the running fleetform: run in `projectDir` when given, else from anywhere. */
export function runningFleetformSpec(projectDir?: string): string {
  return installSpecFor(fleetformSource(projectDir ?? process.cwd()), projectDir);
}
