/** Who holds a lock: this process's identity, and whether a recorded holder still runs. */
import { readFileSync } from 'node:fs';
import * as os from 'node:os';
import { randomUUID } from 'node:crypto';
import { FleetformError } from '../../domain/errors';
import type { LockInfo } from './schema';

/** Milliseconds since the epoch at which a process of this machine started; undefined when unknown. */
export function processStart(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at the last ")".
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    const boot = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
    if (!boot || !Number.isFinite(ticks)) return undefined;
    return Number(boot[1]) * 1000 + Math.round((ticks * 1000) / 100);
  } catch {
    return undefined;
  }
}

/** What a lock records of the process taking it. */
export function thisProcess(): Pick<LockInfo, 'pid' | 'host' | 'process_start' | 'command'> {
  return {
    pid: process.pid,
    host: os.hostname(),
    process_start: processStart(process.pid) ?? Math.round(Date.now() - process.uptime() * 1000),
    command: ['fleetform', ...process.argv.slice(2)].join(' '),
  };
}

/** True when a lock's holder ran on this machine and that process is gone (or its pid now belongs to another). */
export function holderIsDead(holder: LockInfo): boolean {
  if (!holder.host || holder.host !== os.hostname()) return false;
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return true;
    return false;
  }
  if (holder.process_start === undefined) return false;
  const started = processStart(holder.pid);
  // Start times are read at a tick's resolution: a difference beyond a second is another process.
  return started !== undefined && Math.abs(started - holder.process_start) > 1000;
}

/** A state lock is held by another run. */
export class StateLockedError extends FleetformError {
  /** True when the holder is a dead process of this machine (waiting would not help). */
  stale = false;
}

/** What a new lock records: its id, the operation, and this process. */
export function newLockInfo(operation: string): LockInfo {
  return {
    id: randomUUID(),
    operation,
    who: `${os.userInfo().username}@${os.hostname()}`,
    created: new Date().toISOString(),
    ...thisProcess(),
  };
}

/**
 * The error of a lock another run holds: who holds it and, when it is known, how to release
 * it should that run be stuck (`stuck`, e.g. "if it hangs: fleetform force-unlock ID").
 */
export function lockedError(stack: string, path: string, holder: LockInfo | undefined, stuck: string, nobody: string): StateLockedError {
  return new StateLockedError(`state of stack "${stack}" is locked by ${holder ? describeHolder(holder) : nobody}`, {
    path,
    hint: holder ? `wait for it to finish, retry with --lock-timeout, or ${stuck}` : 'wait for it to finish or retry with --lock-timeout',
  });
}

/** The holder as lock errors name it: who, which process and command, since when, the lock ID. */
export function describeHolder(holder: LockInfo): string {
  return `${holder.who} (pid ${holder.pid}${holder.command ? `, "${holder.command}"` : ''}) for "${holder.operation}" since ${holder.created}, lock ID ${holder.id}`;
}
