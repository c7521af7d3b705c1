/**
 * What the dashboard shows, as plain JSON the server sends and the page reads. This file
 * imports nothing, so the page (built for the browser) shares these types with the server.
 * Every value here is safe to show: secrets are masked before a view is made.
 */

export type MachineHealthName = 'healthy' | 'starting' | 'held' | 'unhealthy' | 'behind' | 'unreachable';

/** The fragment a machine runs an entry (a module, component or service) from. */
export interface FragmentRef {
  readonly id: string;
  readonly name?: string;
}

/** One module of a machine: the version its policy resolves to against the registry's latest. */
export interface FleetModule {
  readonly name: string;
  readonly moduleId: string;
  readonly policy: string;
  readonly running?: string;
  readonly latest?: string;
  readonly admitsLatest: boolean;
  /** The state the machine reports for it (`ready`, `failed`, ...), when known. */
  readonly state?: string;
  readonly error?: string;
  /** The fragment it comes from, when it does. */
  readonly fragment?: FragmentRef;
}

/** One machine of the fleet page. `key` is `stack/machine` and unique. */
export interface FleetMachine {
  readonly key: string;
  readonly stack: string;
  readonly machine: string;
  readonly partId: string;
  /** The location's name (its id when the name cannot be read). */
  readonly location: string;
  readonly locationId?: string;
  readonly online: string;
  readonly secondsSinceOnline: number;
  readonly health: MachineHealthName;
  readonly runningRevision?: string;
  readonly latestRevision: string;
  readonly modules: readonly FleetModule[];
  readonly resources: { readonly ready: number; readonly total: number };
  /** What went wrong on it, one line each. */
  readonly problems: readonly string[];
}

/** `gone`: the machine no longer exists (it is not in its stack's state any more). */
export type RolloutMachineState = 'waiting' | 'written' | 'healthy' | 'failed' | 'rolled back' | 'left' | 'not reached' | 'gone';

export interface RolloutMachineView {
  readonly name: string;
  readonly address: string;
  readonly state: RolloutMachineState;
  /** The machine failed its gate (it may have been rolled back since). */
  readonly failed: boolean;
  readonly why?: string;
  /** The module or resource that failed, with its error. */
  readonly problems?: ReadonlyArray<{ readonly what: string; readonly error: string }>;
  /** The newest error line of its log, for a failed machine. */
  readonly log?: string;
}

/** One measurement of a wave's analysis, as it was taken. */
export interface RolloutMeasurementView {
  readonly analysis: string;
  readonly at: string;
  readonly result: 'pass' | 'fail' | 'inconclusive';
  /** The wave's value and the baseline's, as text (`no data` when none reported). */
  readonly value: string;
  readonly baseline?: string;
  readonly why: string;
}

export interface RolloutWaveView {
  readonly number: number;
  readonly rule: string;
  /** `done` passed, `current` the rollout is in it, `stopped` it stopped in it, `pending` not started yet, `not reached` the rollout ended before it. */
  readonly phase: 'done' | 'current' | 'stopped' | 'pending' | 'not reached';
  readonly machines: readonly RolloutMachineView[];
  /** Its analysis's measurements so far, oldest first; absent when none was taken. */
  readonly analysis?: readonly RolloutMeasurementView[];
}

export interface RolloutView {
  /** `stack` for a stack's rollout, `stack~name` for a fragment's. */
  readonly key: string;
  readonly stack: string;
  readonly name: string;
  /** `paused`: held by a pause step or its schedule's stop until released; `waiting`: its schedule's start is ahead. */
  readonly status: 'running' | 'paused' | 'waiting' | 'completed' | 'stopped' | 'aborted';
  readonly wave: number;
  readonly startedAt: string;
  readonly updatedAt: string;
  readonly reason?: string;
  readonly fragment?: { readonly name: string; readonly fromRevision?: string; readonly toRevision?: string };
  readonly waves: readonly RolloutWaveView[];
  /** Whether an abort would write machines back. */
  readonly abortable: boolean;
  /** Whether it was interrupted (left running with no run holding its stack) and can be resumed. */
  readonly resumable: boolean;
  /** Whether the code declares it now (false: an older rollout, shown under the history); true when the code is not known. */
  readonly current: boolean;
}

/** One drifted value: changed outside fleetform since the last apply. Values are shown as text, secrets as `(sensitive)`. */
export interface DriftView {
  readonly stack: string;
  readonly address: string;
  readonly type: string;
  readonly path: string;
  readonly before: string;
  readonly after: string;
  /** The object was deleted outside fleetform. */
  readonly vanished: boolean;
}

export interface PlanSummaryView {
  readonly add: number;
  readonly change: number;
  readonly destroy: number;
  readonly drifted: number;
  readonly problems: number;
}

/** How a line of a plan is coloured in a terminal: additions green, changes yellow, removals red. */
export type PlanTone = 'add' | 'change' | 'remove' | 'heading' | 'note' | 'plain';

/** One line of a plan's text with its colour (the text is plain: it is shown as text, never as markup). */
export interface PlanLine {
  readonly tone: PlanTone;
  readonly text: string;
}

/** The pending plan, rendered as `fleetform plan` and `plan --markdown` render it. */
export interface PlanView {
  readonly createdAt: string;
  readonly stacks: readonly string[];
  readonly text: string;
  /** `text` line by line, coloured as the terminal colours it. */
  readonly lines: readonly PlanLine[];
  readonly markdown: string;
  readonly summary: PlanSummaryView;
  readonly hasChanges: boolean;
  /** Waiting for an approval before it is applied (a reconciler's plan). */
  readonly awaitingApproval: boolean;
}

/** One reconcile cycle of a reconciler: what it found and did. */
export interface CycleView {
  readonly id: string;
  readonly startedAt: string;
  readonly finishedAt?: string;
  readonly outcome: string;
  readonly summary: string;
}

export type EventLevel = 'info' | 'warn' | 'error';

/** One line of the event log: a rollout step, an action taken, a reconciler's step. */
export interface EventView {
  readonly id: number;
  readonly at: string;
  readonly kind: string;
  readonly level: EventLevel;
  readonly message: string;
  readonly stack?: string;
}

/** The actions this dashboard's source can take (each still needs the token). */
export interface Capabilities {
  readonly abort: boolean;
  readonly resume: boolean;
  readonly approve: boolean;
  readonly heal: boolean;
}

/** The fleet's health counts at one reading: healthy, changing (starting, behind, held), unhealthy, offline (or unreachable). */
export interface HealthPoint {
  readonly at: string;
  readonly healthy: number;
  readonly changing: number;
  readonly unhealthy: number;
  readonly offline: number;
}

export interface DashboardSnapshot {
  readonly generatedAt: string;
  /** Who feeds the dashboard: `fleetform dashboard` on its own, or a reconciler. */
  readonly source: string;
  readonly machines: readonly FleetMachine[];
  readonly rollouts: readonly RolloutView[];
  readonly drift: readonly DriftView[];
  readonly plan?: PlanView;
  /** Why the pending plan could not be made, when it could not. */
  readonly planError?: string;
  readonly cycles: readonly CycleView[];
  readonly events: readonly EventView[];
  readonly capabilities: Capabilities;
  /** Why the fleet could not be read, when it could not (the rest is the last good reading). */
  readonly readError?: string;
  /** The number of the last update this snapshot includes (set by the dashboard; a page applies only later ones). */
  readonly version?: number;
  /** The fleet's health counts as the dashboard recorded them since it started, oldest first (set by the dashboard). */
  readonly health?: readonly HealthPoint[];
}

/** A module as the fleet page shows it. */
export interface FleetRowModule {
  readonly name: string;
  readonly moduleId: string;
  readonly running?: string;
  readonly latest?: string;
  /** The fragment it comes from, when it does. */
  readonly fragment?: FragmentRef;
}

/** A machine as the fleet page shows it (a `FleetMachine` is one). */
export interface FleetRow {
  readonly key: string;
  readonly stack: string;
  readonly machine: string;
  readonly location: string;
  readonly locationId?: string;
  readonly online: string;
  readonly secondsSinceOnline: number;
  readonly health: MachineHealthName;
  readonly runningRevision?: string;
  readonly latestRevision: string;
  readonly modules: readonly FleetRowModule[];
  readonly resources: { readonly ready: number; readonly total: number };
}

/**
 * The fleet page's rows as sent to a page: only what the page shows, as one tuple per
 * machine whose repeated strings (stacks, locations, revisions, module lists) are indexes
 * into shared tables. 10,000 machines cost a few hundred kilobytes rather than megabytes; a
 * machine's full row comes with its page (api/machines/KEY).
 */
export interface FleetTable {
  /** Distinct strings the rows and module sets point to. */
  readonly strings: readonly string[];
  /** Distinct module lists, each flat: name, module id, running, latest, fragment id, fragment name (string indexes; -1 for none) per module. */
  readonly moduleSets: ReadonlyArray<readonly number[]>;
  readonly rows: readonly FleetRowTuple[];
}

/**
 * One machine: stack, machine name (itself, unique), location, health, online, seconds since
 * online, running revision (-1 for none), latest revision, module set, resources ready, resources
 * total, location id. Every other value is an index into `strings` (`moduleSet` into `moduleSets`).
 */
export type FleetRowTuple = readonly [
  stack: number,
  machine: string,
  location: number,
  health: number,
  online: number,
  secondsSinceOnline: number,
  runningRevision: number,
  latestRevision: number,
  moduleSet: number,
  ready: number,
  total: number,
  locationId?: number,
];

/** A snapshot as a page reads it (api/snapshot, and the event stream's first message): the machines as a table. */
export type PageSnapshot = Omit<DashboardSnapshot, 'machines'> & { readonly fleet: FleetTable };

/**
 * What the server pushes to a page (server-sent events, the event name is `type`, the event
 * id the update's number): only what changed, so a fleet of thousands updates machine by
 * machine. A page reads the snapshot once (api/snapshot, after its stream opened) and applies
 * the updates numbered after the snapshot's `version`.
 */
export type DashboardUpdate =
  | { readonly type: 'snapshot'; readonly snapshot: PageSnapshot }
  | { readonly type: 'machines'; readonly upsert: FleetTable; readonly remove: readonly string[] }
  | { readonly type: 'rollouts'; readonly rollouts: readonly RolloutView[] }
  | { readonly type: 'drift'; readonly drift: readonly DriftView[] }
  | { readonly type: 'plan'; readonly plan?: PlanView; readonly planError?: string }
  | { readonly type: 'cycles'; readonly cycles: readonly CycleView[] }
  | { readonly type: 'event'; readonly event: EventView }
  | { readonly type: 'health'; readonly point: HealthPoint }
  | { readonly type: 'status'; readonly generatedAt: string; readonly readError?: string };

/** A machine's page: its config as resolved, fragments, resources, logs and part history. */
export interface MachineDetail {
  readonly machine: FleetMachine;
  /** Its config as fleetform last applied it (state), secrets masked. */
  readonly config: unknown;
  readonly fragments: ReadonlyArray<{ readonly id: string; readonly name?: string; readonly version?: string }>;
  /** Its components and services: as it reports them, and those its config names that it does not report (state `not reported`). */
  readonly resources: ReadonlyArray<{
    readonly name: string;
    readonly api: string;
    readonly state: string;
    readonly error: string;
    /** The fragment it comes from, when it does. */
    readonly fragment?: FragmentRef;
  }>;
  readonly logs: ReadonlyArray<{ readonly at: string; readonly level: string; readonly logger: string; readonly message: string }>;
  /** The part's config edits, newest first, each as a diff against the config before it. */
  readonly history: ReadonlyArray<{
    readonly at: string;
    /** Who made the edit, as the service names them: a user's e-mail, an API key's name (else its id), a secret's kind. */
    readonly editedBy: string;
    /** The service's id of the editor (an API key's id), when `editedBy` is another name. */
    readonly editorId?: string;
    readonly changes: ReadonlyArray<{ readonly path: string; readonly before: string; readonly after: string }>;
  }>;
}

/** The result of an action: what was done, for the page and the event log. */
export interface ActionResult {
  readonly ok: boolean;
  readonly message: string;
}

/** A promoted model as its page shows it: each decided version with its evidence, the machines on each, failed training jobs' last log lines. */
export type { ModelHistory as ModelView } from '../engine/readings';
