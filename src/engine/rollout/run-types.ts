/** What a rollout's run takes, and how a stage writes and puts back its machines. */
import type { ServiceClient } from '../../api/client';
import type { GateTrack, RolloutPlan, RolloutWaveMachine } from '../../domain/rollout';
import type { ApplyOutcome } from '../apply-outcome';
import type { MachineStatusSource } from '../health/machine-status-source';
import type { AnalysisSignals } from '../health/analysis-signals';
import type { ResourceChange } from '../plan-model';
import type { State, StateEntry } from '../state/schema';
import type { RolloutJournal, RolloutJournalStore } from '../state/rollout-journal';
import type { MachineOutcome, RolloutEvents, WaveBoundary } from './events';
import type { RolloutClock } from './pacing';

export interface RunRolloutInput {
  readonly plan: RolloutPlan;
  readonly changes: ReadonlyMap<string, ResourceChange>;
  /** Applies changes through the executor. */
  apply(changes: readonly ResourceChange[]): Promise<ApplyOutcome>;
  readState(): Promise<State>;
  /** Puts entries back in the state (rolled-back machines get the entry they had). */
  restoreEntries(entries: ReadonlyMap<string, StateEntry>): Promise<void>;
  readonly client: ServiceClient;
  readonly source: MachineStatusSource;
  readonly events: RolloutEvents;
  /** The most machines read or written back at once. */
  readonly concurrency: number;
  /** The most machine reads in flight while waiting at a gate (default 32, at least `concurrency`). */
  readonly readConcurrency?: number;
  /** How often machines are read while waiting. */
  readonly pollMs?: number;
  readonly journal: RolloutJournalStore;
  /** The journal of an interrupted run of this rollout: it goes on from there. */
  readonly resume?: RolloutJournal;
  /** How machines are written and put back; the stack's config changes by default. */
  readonly stage?: RolloutStage;
  /** Asked before each wave (the first of this run too): a reason pauses the rollout there. */
  readonly waveBoundary?: WaveBoundary;
  /** Where pacing and the schedule read the time and wait (the system's by default). */
  readonly clock?: RolloutClock;
  /** Whether to wait for the schedule's start (default), or leave the rollout waiting. */
  readonly waitForSchedule?: boolean;
  /** Where a wave's analysis reads its signals; the service's by default. */
  readonly signals?: AnalysisSignals;
}

/** One machine a stage wrote: its part, what puts it back, and the revision its gate waits for. */
export type StageWrite =
  | { readonly partId: string; readonly baseline: Written['baseline']; readonly prior: StateEntry; readonly revision: string }
  | { readonly partId: string | undefined; readonly error: string };

/**
 * How a rollout changes a wave's machines and puts them back: the stack's rollout writes
 * their planned configs (and writes the configs they had back), a fragment's rollout pins
 * their imports to its new revision (and back to the version they followed).
 */
export interface RolloutStage {
  /** Whether the machine has a change this run writes. */
  pending(address: string): boolean;
  /** Writes the machines (their state entries in `state`); each one's result by address. */
  write(targets: readonly MachineOutcome[], state: State): Promise<ReadonlyMap<string, StageWrite>>;
  /** Puts back every machine written (each outcome says how it went). */
  rollBack(written: readonly Written[], plan: RolloutPlan): Promise<void>;
  /**
   * Asked at each wave boundary: the machines that started to need this rollout since it
   * began (none of `known`), each kept on what it ran until its wave writes it.
   */
  joiners?(state: State, known: ReadonlySet<string>): Promise<readonly RolloutWaveMachine[]>;
}

/** What the rollout changed on one machine: enough to write it back. */
export interface Written {
  readonly outcome: MachineOutcome;
  readonly partId: string;
  /** The config before the rollout (read from the part history when the run resumed), and its revision. */
  /** The config the machine had before the rollout wrote it (and the text it was read from), or only its revision. */
  readonly baseline: { readonly config: Record<string, unknown> | undefined; readonly configJson?: string; readonly revision: string };
  readonly prior: StateEntry;
  /** The revision of the rollout's write. */
  readonly revision: string;
  track: GateTrack;
  /** Whether its last reading found the revision held back by the machine's maintenance window. */
  held?: boolean;
}

/** The poll interval for a gate: a quarter of its settle time, from 50 ms to 1 s. */
export function pollInterval(settleMs: number): number {
  return Math.min(1000, Math.max(50, Math.floor(settleMs / 4)));
}
