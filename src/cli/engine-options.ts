/**
 * The flags engine commands share, how their values are read and the stale-lock policy of
 * --break-stale-lock: what registering a command needs, without the engine it runs (see
 * workspace).
 */
import type { Command } from 'commander';
import { parseDuration } from '../domain/duration';
import { InputError } from '../domain/errors';
import type { LockInfo } from '../engine';
import { askYes } from './confirm';

/** Options every engine command shares. */
export interface EngineCommandOptions {
  readonly stack?: string[];
  readonly parallelism?: string;
  readonly readParallelism?: string;
  readonly lockTimeout?: string;
  /** Use an already synthesized app output instead of running the app. */
  readonly synthOut?: string;
  /** Take over a lock whose holder is a dead process of this machine. */
  readonly breakStaleLock?: boolean;
  /** apply: how long to wait for the training jobs whose models machines deploy (a duration; default: not at all). */
  readonly waitForTraining?: string;
}

export function addEngineOptions(cmd: Command): Command {
  return cmd
    .option('--stack <name...>', 'only these stacks (default: every stack of the app)')
    .option('--parallelism <n>', 'how many resources are written at once, and read at first', '10')
    .option(
      '--read-parallelism <n>',
      'the most reads in flight while planning; reads start at 128 (or this, if lower) and follow the network between --parallelism and this',
      '512',
    )
    .option('--lock-timeout <duration>', 'how long to wait for a state lock (e.g. 30s, 2m)', '0s')
    .option('--synth-out <dir>', 'use this synthesized output instead of running the app')
    .option(
      '--break-stale-lock',
      'take over a state lock left by a fleetform that is no longer running on this machine (harmless without one)',
    );
}

/** A flag holding a duration (`30s`, `2m`, `1m30s`), zero when not given. */
export function durationFlag(text: string | undefined, flag: string): number {
  return text === undefined ? 0 : parseDuration(text, flag);
}

/** A flag holding `true` or `false` (any other value is refused, not read as true). */
export function booleanFlag(text: string | boolean, flag: string): boolean {
  const value = String(text).trim().toLowerCase();
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new InputError(`expected true or false, not ${JSON.stringify(String(text))}`, { path: flag });
}

/** Takes a stale lock over with the flag, or after a yes on a terminal; otherwise refuses (the error says how). */
export function staleLockPolicy(flag: boolean): (holder: LockInfo) => Promise<boolean> {
  return async (holder) => {
    const what = `pid ${holder.pid} on ${holder.host ?? 'this machine'} ("${holder.command ?? holder.operation}", since ${holder.created})`;
    if (flag) {
      process.stderr.write(`Taking over a stale state lock: its holder, ${what}, is no longer running.\n`);
      return true;
    }
    if (!process.stdin.isTTY || !process.stdout.isTTY) return false;
    return askYes(`The state lock is held by ${what}, which is no longer running. Take the lock over?`);
  };
}
