import { randomUUID } from 'node:crypto';
import { promises as fs, constants } from 'node:fs';
import { z } from 'zod';
import * as path from 'node:path';
import { FleetformError } from '../../domain/errors';
import type { LockOptions, StateBackend, StateLock } from './backend';
import { holderIsDead, lockedError, newLockInfo, StateLockedError } from './holder-process';
import { stateTextChunks } from './state-text';
import { emptyState, LockInfoSchema, StateEntrySchema, stateDocument, type LockInfo, type State, type StateEntry } from './schema';

/** The state log's file suffix; the stored name, as earlier versions wrote it. */
const STATE_LOG_SUFFIX = '.journal.jsonl';

/** One line of the state log: a change recorded after the last full write. */
const StateLogLineSchema = z.object({
  lineage: z.string(),
  serial: z.number().int(),
  address: z.string(),
  entry: StateEntrySchema.nullable(),
});

export { StateLockedError } from './holder-process';

/** Writes text pieces through the handle in batches of about a megabyte. */
async function writeChunks(handle: fs.FileHandle, chunks: Iterable<string>): Promise<void> {
  const flush = async (text: string) => {
    const bytes = Buffer.from(text, 'utf8');
    for (let offset = 0; offset < bytes.length;) offset += (await handle.write(bytes, offset, bytes.length - offset)).bytesWritten;
  };
  let batch = '';
  for (const chunk of chunks) {
    batch += chunk;
    if (batch.length >= 1 << 20) {
      await flush(batch);
      batch = '';
    }
  }
  if (batch) await flush(batch);
}

const STACK_NAME = /^[A-Za-z0-9][\w.-]*$/;

export { emptyState } from './schema';

/**
 * State on the local disk: `<dir>/<stack>.state.json`, written atomically (temporary
 * file, fsync, rename) with mode 0600; changes between full writes go to an
 * append-only state log `<stack>.journal.jsonl` (fsync'd, replayed by `read`, removed by
 * the next full write), so saving after each resource does not rewrite the whole
 * state. A lock file `<stack>.lock`, created exclusively, holds who took it and why.
 */
export class LocalStateBackend implements StateBackend {
  readonly description: string;
  constructor(private readonly dir: string) {
    this.description = `local (${dir})`;
  }

  private file(stack: string, suffix: string): string {
    if (!STACK_NAME.test(stack)) {
      throw new FleetformError(`invalid stack name ${JSON.stringify(stack)}`, {
        hint: 'stack names use letters, digits, ".", "_" and "-"',
      });
    }
    return path.join(this.dir, `${stack}${suffix}`);
  }

  async read(stack: string): Promise<State> {
    return this.replayStateLog(await this.readDocument(stack));
  }

  private async replayStateLog(state: State): Promise<State> {
    let text: string;
    try {
      text = await fs.readFile(this.file(state.stack, STATE_LOG_SUFFIX), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return state;
      throw err;
    }
    const lines = text.split('\n').filter((l) => l.trim() !== '');
    const fresh = state.serial === 0 && Object.keys(state.resources).length === 0;
    const written = state.serial;
    for (const [i, line] of lines.entries()) {
      let parsed: z.infer<typeof StateLogLineSchema>;
      try {
        parsed = StateLogLineSchema.parse(JSON.parse(line));
      } catch {
        if (i === lines.length - 1) break; // a write cut short by a crash: everything before it stands
        throw new FleetformError(`state log of stack ${state.stack} is damaged at line ${i + 1}`, {
          path: this.file(state.stack, STATE_LOG_SUFFIX),
          hint: 'restore the state from its .backup, or remove the state log (its .journal.jsonl) and import what the last apply created',
        });
      }
      if (fresh && i === 0) state.lineage = parsed.lineage;
      if (parsed.lineage !== state.lineage || parsed.serial <= written) continue;
      if (parsed.entry) state.resources[parsed.address] = parsed.entry;
      else delete state.resources[parsed.address];
      state.serial = Math.max(state.serial, parsed.serial);
    }
    return state;
  }

  async record(state: State, changes: ReadonlyMap<string, StateEntry | null>): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    const text = [...changes]
      .map(([address, entry]) => JSON.stringify({ lineage: state.lineage, serial: state.serial, address, entry }))
      .join('\n');
    const handle = await fs.open(
      this.file(state.stack, STATE_LOG_SUFFIX),
      constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND,
      0o600,
    );
    try {
      await handle.writeFile(`${text}\n`, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  private async readDocument(stack: string): Promise<State> {
    const file = this.file(stack, '.state.json');
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return emptyState(stack);
      throw err;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new FleetformError(`state file ${file} is not valid JSON`, {
        path: file,
        hint: 'restore it from a backup (the previous version is kept as .backup), or remove it and import the resources again',
      });
    }
    return stateDocument(parsed, `state file ${file}`, file);
  }

  async write(state: State): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    const file = this.file(state.stack, '.state.json');
    const tmp = `${file}.${process.pid}.${randomUUID()}.tmp`;
    const handle = await fs.open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      await writeChunks(handle, stateTextChunks(state));
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await fs.copyFile(file, `${file}.backup`);
      await fs.chmod(`${file}.backup`, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    await fs.rename(tmp, file);
    await fs.rm(this.file(state.stack, STATE_LOG_SUFFIX), { force: true });
    const dir = await fs.open(this.dir, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  }

  /** Names of the stacks that have a state or a state log (an apply cut short before its first full write) here. */
  async stacks(): Promise<string[]> {
    return [...new Set([...(await this.stacksWith('.state.json')), ...(await this.stacksWith(STATE_LOG_SUFFIX))])].sort();
  }

  /** Stacks whose state is locked now, including a stack locked before its first state was written. */
  async lockedStacks(): Promise<string[]> {
    return this.stacksWith('.lock');
  }

  private async stacksWith(suffix: string): Promise<string[]> {
    try {
      const files = await fs.readdir(this.dir);
      return files
        .filter((f) => f.endsWith(suffix))
        .map((f) => f.slice(0, -suffix.length))
        .sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  }

  async lockHolder(stack: string): Promise<LockInfo | undefined> {
    try {
      const text = await fs.readFile(this.file(stack, '.lock'), 'utf8');
      const parsed = LockInfoSchema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : undefined;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      if (err instanceof SyntaxError) return undefined;
      throw err;
    }
  }

  async lock(stack: string, operation: string, options: LockOptions): Promise<StateLock> {
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    const file = this.file(stack, '.lock');
    const info = newLockInfo(operation);
    const deadline = Date.now() + options.timeoutMs;
    for (;;) {
      try {
        const handle = await fs.open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
        try {
          await handle.writeFile(JSON.stringify(info), 'utf8');
          await handle.sync();
        } finally {
          await handle.close();
        }
        return {
          info,
          release: async () => {
            const holder = await this.lockHolder(stack);
            if (holder?.id === info.id) await fs.rm(file, { force: true });
          },
        };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const holder = await this.lockHolder(stack);
      const unlock = holder ? `fleetform force-unlock ${holder.id}` : '';
      if (holder && holderIsDead(holder)) {
        if (options.breakStale && (await options.breakStale(holder))) {
          await this.forceUnlock(stack, holder.id).catch(() => undefined);
          continue;
        }
        throw Object.assign(
          new StateLockedError(
            `state of stack "${stack}" is locked by a fleetform that is no longer running: pid ${holder.pid} on ${holder.host ?? 'this machine'} ("${holder.command ?? holder.operation}", since ${holder.created}); the lock is stale`,
            { path: file, hint: `take it over with --break-stale-lock, or release it: ${unlock}` },
          ),
          { stale: true },
        );
      }
      if (Date.now() >= deadline) {
        throw lockedError(stack, file, holder, `if no fleetform is running: ${unlock}`, 'another process');
      }
      await new Promise((r) => setTimeout(r, Math.min(250, Math.max(10, deadline - Date.now()))));
    }
  }

  async forceUnlock(stack: string, lockId: string): Promise<void> {
    const holder = await this.lockHolder(stack);
    if (!holder) {
      throw new FleetformError(`stack "${stack}" is not locked`, { hint: 'nothing to unlock' });
    }
    if (holder.id !== lockId) {
      throw new FleetformError(`lock ID ${lockId} does not match the lock held on stack "${stack}"`, {
        hint: `the current lock ID is ${holder.id} (${holder.who}, "${holder.operation}")`,
      });
    }
    await fs.rm(this.file(stack, '.lock'), { force: true });
  }
}
