/**
 * Where a dashboard's data comes from and what it can do. `fleetform dashboard` reads the
 * state and the service on its own (standalone-source.ts); a reconciler serving the
 * dashboard implements this with its live cycles, events and approvals.
 */
import type { ActionResult, DashboardSnapshot, EventLevel, MachineDetail, ModelView } from './view';

/** An event as a source reports it; the dashboard numbers and timestamps it. */
export interface SourceEvent {
  readonly kind: string;
  readonly level: EventLevel;
  readonly message: string;
  readonly stack?: string;
  /** When it happened (RFC 3339); now when left out. */
  readonly at?: string;
}

/** What a source pushes: a fresh reading (the dashboard sends pages only what changed in it), or one event. */
export type SourceChange =
  { readonly kind: 'snapshot'; readonly snapshot: DashboardSnapshot } | { readonly kind: 'event'; readonly event: SourceEvent };

/** A rollout an action names: the stack, and the fragment rollout's name for a fragment's. */
export interface RolloutTarget {
  readonly stack: string;
  readonly rollout?: string;
}

export interface DashboardSource {
  /** The latest reading (the events in it are the source's own; the dashboard keeps its log). */
  snapshot(): Promise<DashboardSnapshot>;
  /** Calls `listener` with every new reading and event until the returned function is called. */
  subscribe(listener: (change: SourceChange) => void): () => void;
  /** One machine's page, by `stack/machine`; undefined when there is no such machine. */
  machine(key: string): Promise<MachineDetail | undefined>;
  /** Each promoted model's history (the model page). */
  models?(): Promise<readonly ModelView[]>;
  /** Rolls a running or stopped rollout back. */
  abortRollout?(target: RolloutTarget): Promise<ActionResult>;
  /** Continues an interrupted rollout from the wave it was in. */
  resumeRollout?(target: RolloutTarget): Promise<ActionResult>;
  /** Approves the pending plan of a stack, which is then applied. */
  approve?(stack: string): Promise<ActionResult>;
  /** Reverts the drift now instead of at the next cycle. */
  healNow?(): Promise<ActionResult>;
  /** Told of every action taken through the dashboard, to notify as the source's own events are. */
  notify?(event: SourceEvent): void;
}
