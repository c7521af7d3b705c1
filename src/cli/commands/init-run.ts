/** What `fleetform init` does when it runs, loaded then; its name, flags and help are in init.ts. */
import { existsSync, readFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { InputError } from '../../domain/errors';
import { fleetformSpecFor, newProjectFiles, nextSteps, projectName, type FleetformSource } from '../../engine/project/new-project';

export interface InitOptions {
  fleetformSpec?: string;
  force?: boolean;
}

/** The folder of the running fleetform package (this file is dist/cli/commands/init-run.js). */
const PACKAGE_ROOT = path.resolve(__dirname, '..', '..', '..');

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

/** Where the running fleetform comes from: a spec given, a checkout, or the project that installed it. */
function runningSource(opts: InitOptions, cwd: string): FleetformSource {
  if (opts.fleetformSpec !== undefined) return { kind: 'given', spec: opts.fleetformSpec, cwd };
  const parts = PACKAGE_ROOT.split(path.sep);
  const at = parts.lastIndexOf('node_modules');
  if (at < 0) return { kind: 'checkout', dir: PACKAGE_ROOT };
  const projectDir = parts.slice(0, at).join(path.sep) || path.sep;
  const spec = installedSpec(projectDir);
  return spec ? { kind: 'installed', projectDir, spec } : { kind: 'unknown', packageDir: PACKAGE_ROOT };
}

/** Refuses a folder holding anything, unless forced; makes it when missing. */
async function prepareDir(dir: string, force: boolean): Promise<void> {
  if (!existsSync(dir)) {
    await fs.mkdir(dir, { recursive: true });
    return;
  }
  const stat = await fs.stat(dir);
  if (!stat.isDirectory()) throw new InputError('this is a file, not a folder', { path: dir, hint: 'name a new or empty folder' });
  const entries = await fs.readdir(dir);
  if (entries.length > 0 && !force) {
    throw new InputError(`the folder is not empty (${entries.slice(0, 5).join(', ')}${entries.length > 5 ? ', ...' : ''})`, {
      path: dir,
      hint: 'name a new or empty folder, or pass --force to write the project files over what is there',
    });
  }
}

/** `fleetform init [DIR]`: a new CDK Terrain project managing a two-machine fleet, and what to run next. */
export async function runInit(dirArg: string, opts: InitOptions): Promise<void> {
  const cwd = process.cwd();
  const dir = path.resolve(cwd, dirArg);
  const spec = fleetformSpecFor(runningSource(opts, cwd), dir);
  await prepareDir(dir, opts.force ?? false);
  const files = newProjectFiles(projectName(dir), spec);
  for (const file of files) await fs.writeFile(path.join(dir, file.path), file.content);
  const relative = path.relative(cwd, dir);
  process.stdout.write(
    `Made a fleetform project in ${dir}: ${files.map((f) => f.path).join(', ')} (fleetform from ${spec}).\n\nNext:\n` +
      nextSteps(relative)
        .map((line) => `  ${line}\n`)
        .join(''),
  );
}
