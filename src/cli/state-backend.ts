/**
 * Which state backend a command uses: what the stacks' Terraform backend blocks say
 * (cdktf's PgBackend: PostgreSQL), else local files in `.fleetform/state/`. Commands that
 * run no app (state, output, force-unlock, status) read the backend blocks of the last
 * synthesized output.
 */
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { FleetformError } from '../domain/errors';
import { type DesiredStack, LocalStateBackend, readStacks, type StackBackend, type StateBackend } from '../engine';
import { runApp } from './run-app';

/** A state backend that can also list its stacks and their locks. */
export interface ProjectStateBackend extends StateBackend {
  stacks(): Promise<string[]>;
  lockedStacks(): Promise<string[]>;
}

/** Where a project keeps local state. */
export function localStateDir(cwd: string): string {
  return path.join(cwd, '.fleetform', 'state');
}

function sameBackend(a: StackBackend, b: StackBackend): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The one backend the stacks declare; stacks declaring different ones, or one fleetform cannot use, are refused. */
export function declaredBackend(stacks: readonly DesiredStack[]): StackBackend {
  const backends = stacks.map((s) => ({ stack: s.name, backend: s.backend ?? { type: 'local' as const } }));
  const first = backends[0]?.backend ?? { type: 'local' as const };
  const other = backends.find((b) => !sameBackend(b.backend, first));
  if (other) {
    throw new FleetformError(`stacks ${backends[0]?.stack} and ${other.stack} keep their state in different backends`, {
      path: `${other.stack}#terraform.backend`,
      hint: 'give every stack of the app the same backend (e.g. one PgBackend), or run each group with --stack',
    });
  }
  if (first.type === 'other') {
    throw new FleetformError(`fleetform keeps state in local files or PostgreSQL, not in the ${first.name} backend`, {
      path: `${backends[0]?.stack}#terraform.backend.${first.name}`,
      hint: 'use PgBackend (or no backend) for fleetform plan/apply, or deploy with `cdktf deploy` through the Terraform provider',
    });
  }
  return first;
}

export function backendFor(declared: StackBackend, cwd: string, env: NodeJS.ProcessEnv = process.env): ProjectStateBackend {
  if (declared.type === 'pg') {
    // Loaded only for stacks that keep state in PostgreSQL: the driver is a tenth of a second of every start.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, synchronously
    const { PgStateBackend } = require('../engine/pg-state') as typeof import('../engine/pg-state');
    return new PgStateBackend({ ...declared, ...(env.FLEETFORM_WORKSPACE ? { workspace: env.FLEETFORM_WORKSPACE } : {}) }, env);
  }
  return new LocalStateBackend(localStateDir(cwd));
}

/**
 * A stack whose state is still in local files while its stacks now name PostgreSQL would
 * start from nothing there: refused until the state is migrated.
 */
export async function assertNothingLeftBehind(backend: ProjectStateBackend, cwd: string, stacks: readonly string[]): Promise<void> {
  if (backend instanceof LocalStateBackend) return;
  const local = new LocalStateBackend(localStateDir(cwd));
  const localStacks = (await local.stacks()).filter((s) => stacks.includes(s));
  if (localStacks.length === 0) return;
  const remote = new Set(await backend.stacks());
  const behind = localStacks.filter((s) => !remote.has(s));
  if (behind.length > 0) {
    throw new FleetformError(
      `the state of ${behind.join(', ')} is in local files, but the stacks now keep state in ${backend.description}`,
      {
        path: localStateDir(cwd),
        hint: 'copy it there first: fleetform state migrate (the local files are kept as a backup)',
      },
    );
  }
}

/**
 * The backend the app's code declares now: the app is run as `plan` runs it (or a saved
 * synthesized output is read when given), so a backend just added to the code is the one used.
 */
export async function declaredProjectBackend(cwd: string, synthOut: string | undefined): Promise<ProjectStateBackend> {
  const outdir = synthOut ? path.resolve(cwd, synthOut) : (await runApp({ cwd })).outdir;
  return backendFor(declaredBackend(await readStacks(outdir)), cwd);
}

/** The backend of a project for commands that run no app: from the last synthesized output, else local. */
export async function projectBackend(cwd: string): Promise<ProjectStateBackend> {
  const outdir = await synthesizedOutdir(cwd);
  if (!outdir) return new LocalStateBackend(localStateDir(cwd));
  return backendFor(declaredBackend(await readStacks(outdir)), cwd);
}

async function synthesizedOutdir(cwd: string): Promise<string | undefined> {
  let output = 'cdktf.out';
  try {
    const settings = JSON.parse(await fs.readFile(path.join(cwd, 'cdktf.json'), 'utf8')) as { output?: unknown };
    if (typeof settings.output === 'string' && settings.output.trim() !== '') output = settings.output.trim();
  } catch {
    // No readable cdktf.json: the default output folder.
  }
  const dir = path.resolve(cwd, output);
  return existsSync(path.join(dir, 'manifest.json')) ? dir : undefined;
}
