/**
 * What the reconciler needs of a project, given by the command line that starts it: its
 * stacks synthesized from a folder, an engine to plan and apply them, and the lease that
 * makes one reconciler of the project lead.
 */
import type { DesiredStack, Engine, RolloutJournalStore, StateBackend } from '../engine';
import type { ServiceClient } from '../api/client';
import type { CheckReaders } from './drift-check';

export interface ReconcileProject {
  readonly stacks: readonly DesiredStack[];
  readonly engine: Engine;
  /** What a dashboard reads the fleet through: the service, the state and the rollout journals the engine uses. */
  readonly fleet?: { readonly client: ServiceClient; readonly backend: StateBackend; readonly journals: RolloutJournalStore };
  /** The engine's kinds, for drift checks that read versions only; without them every cycle plans in full. */
  readonly readers?: CheckReaders;
  /**
   * Tries to take the project's leader lease (a lock held by this process's session with the
   * state backend, released by the server when the session ends); its release, or undefined
   * while another reconciler holds it.
   */
  lead(holder: string): Promise<(() => Promise<void>) | undefined>;
}

export interface ProjectLoader {
  /** Runs the app of the project in `dir` and opens its engine; throws a FleetformError for a broken app or config. */
  load(dir: string): Promise<ReconcileProject>;
  /** Closes connections left open. */
  close(): Promise<void>;
}

/** What preparing a commit's dependencies did, for the log. */
export interface DependencyOutcome {
  readonly level: 'info' | 'warn';
  readonly message: string;
  readonly fields?: Readonly<Record<string, unknown>>;
}

export interface DependencyInstaller {
  /**
   * Makes the dependencies of the project in `dir` (a checkout whose root is `root`) ready for
   * its app; throws a FleetformError when they cannot be (a failed or timed-out install).
   */
  prepare(dir: string, root: string): Promise<DependencyOutcome>;
}
