import type { RolloutJournalStore } from './rollout-journal';
import type { LockInfo, State, StateEntry } from './schema';

export interface LockOptions {
  readonly timeoutMs: number;
  /** Asked when the lock's holder is a dead process of this machine: true takes the lock over. */
  readonly breakStale?: (holder: LockInfo) => Promise<boolean>;
}

/** A lock held on one stack's state; release it when the operation ends. */
export interface StateLock {
  readonly info: LockInfo;
  release(): Promise<void>;
}

/** Where state documents live. One document per stack. */
export interface StateBackend {
  readonly description: string;
  read(stack: string): Promise<State>;
  /** Writes the whole document atomically; the caller has already bumped `serial`. */
  write(state: State): Promise<void>;
  /**
   * Durably records changed entries (null: removed) on top of the last written document,
   * at a cost proportional to the change, not to the state. `read` includes them; the
   * next `write` folds them in. The caller has already bumped `serial`.
   */
  record(state: State, changes: ReadonlyMap<string, StateEntry | null>): Promise<void>;
  lock(stack: string, operation: string, options: LockOptions): Promise<StateLock>;
  forceUnlock(stack: string, lockId: string): Promise<void>;
  /** Reads the current holder without taking the lock. */
  lockHolder(stack: string): Promise<LockInfo | undefined>;
  /**
   * Where rollout journals live when they are kept with the state (a team's database), so
   * an apply killed on one machine resumes, and is aborted, from another; without it they
   * are files of the project.
   */
  rolloutJournals?(): RolloutJournalStore;
}
