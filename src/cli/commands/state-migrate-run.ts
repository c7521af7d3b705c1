/** What `fleetform state migrate` does when it runs, loaded then; its name, flags and help are in state-migrate.ts. */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { FleetformError } from '../../domain/errors';
import { LocalStateBackend, type State } from '../../engine';
import { declaredProjectBackend, localStateDir } from '../state-backend';
import { durationFlag } from '../engine-options';

export interface StateMigrateOptions {
  stack?: string[];
  lockTimeout: string;
  synthOut?: string;
}

/** The parts of a state that must arrive unchanged. */
function fingerprint(state: State): string {
  return JSON.stringify({ lineage: state.lineage, serial: state.serial, resources: state.resources, outputs: state.outputs ?? {} });
}

/** `fleetform state migrate`: copies the local stack states into the declared backend, checks each copy, and keeps the local files as a backup. */
export async function runStateMigrate(opts: StateMigrateOptions): Promise<void> {
  const cwd = process.cwd();
  const target = await declaredProjectBackend(cwd, opts.synthOut);
  if (target instanceof LocalStateBackend) {
    throw new FleetformError('the stacks keep their state in local files: there is nowhere to migrate to', {
      hint: 'declare the backend in the stacks (new PgBackend(stack, { connStr })), then migrate',
    });
  }
  const local = new LocalStateBackend(localStateDir(cwd));
  const names = (await local.stacks()).filter((s) => !opts.stack || opts.stack.length === 0 || opts.stack.includes(s));
  if (names.length === 0) {
    process.stdout.write('No local state to migrate.\n');
    return;
  }
  const timeoutMs = durationFlag(opts.lockTimeout, '--lock-timeout');
  const backup = path.join(localStateDir(cwd), `migrated-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  for (const stack of names) {
    const localLock = await local.lock(stack, 'state migrate', { timeoutMs });
    try {
      const remoteLock = await target.lock(stack, 'state migrate', { timeoutMs });
      try {
        const source = await local.read(stack);
        const existing = await target.read(stack);
        const there = (await target.stacks()).includes(stack);
        if (there && (existing.lineage !== source.lineage || existing.serial < source.serial)) {
          throw new FleetformError(
            `${target.description} already holds another state of stack ${stack} (lineage ${existing.lineage}, serial ${existing.serial})`,
            {
              path: stack,
              hint: 'the local state is not copied over it; compare the two, and remove the one that is wrong (`fleetform state list`)',
            },
          );
        }
        if (!there) {
          await target.write(source);
          const copied = await target.read(stack);
          if (fingerprint(copied) !== fingerprint(source)) {
            throw new FleetformError(`the copy of stack ${stack} in ${target.description} does not read back as written`, {
              path: stack,
              hint: 'the local state is kept as it was; check the database and retry',
            });
          }
        }
        await fs.mkdir(backup, { recursive: true, mode: 0o700 });
        for (const suffix of ['.state.json', '.state.json.backup', '.journal.jsonl']) {
          await fs
            .rename(path.join(localStateDir(cwd), `${stack}${suffix}`), path.join(backup, `${stack}${suffix}`))
            .catch((err: NodeJS.ErrnoException) => {
              if (err.code !== 'ENOENT') throw err;
            });
        }
        const count = Object.keys(source.resources).length;
        process.stdout.write(
          `${there ? 'Already in' : 'Migrated'} ${target.description}: stack ${stack} (${count} resource${count === 1 ? '' : 's'}, serial ${source.serial}).\n`,
        );
      } finally {
        await remoteLock.release();
      }
    } finally {
      await localLock.release();
    }
  }
  process.stdout.write(`The local files are kept in ${path.relative(cwd, backup)}.\n`);
}
