import type { RolloutPlan } from '../domain/rollout';
import type { AttributeChange } from './diff';
import type { JsonObject } from './json';
import type { PlanNote, PlanProblem } from './plan-notes';

/**
 * Terraform's vocabulary, plus `forget` (leave the remote object, drop it from state),
 * `adopt` (record an object an interrupted create made) and `move` (record an object
 * under its new address); both of these last two change nothing on the service.
 */
export type Action = 'create' | 'update' | 'delete' | 'replace' | 'forget' | 'adopt' | 'move' | 'no-op';

/** The plan for one address: what exists, what is wanted, and what apply will do. */
export interface ResourceChange {
  readonly stack: string;
  readonly address: string;
  readonly type: string;
  readonly action: Action;
  /** What exists now (observed, else last applied), secrets masked; null when nothing exists. */
  readonly before: JsonObject | null;
  /** What apply will make it, secrets masked; null for delete/forget. */
  readonly after: JsonObject | null;
  readonly changes: readonly AttributeChange[];
  /** Changes made outside fleetform since the last apply (apply reverts them). */
  readonly drift: readonly AttributeChange[];
  /** The remote object was deleted outside fleetform. */
  readonly vanished: boolean;
  readonly replaceReasons: readonly string[];
  /** For replace: whether the new object is created before the old one is deleted. */
  readonly replaceOrder: 'create-first' | 'delete-first';
  readonly notes: readonly PlanNote[];
  readonly problems: readonly PlanProblem[];
  readonly facts: Readonly<Record<string, string>>;
  readonly sensitivePaths: readonly string[];
  readonly dependsOn: readonly string[];
  /** The observed remote version the plan was made from (guards saved plans). */
  readonly observedVersion: string | null;
  /** Ids of an object an interrupted create made, found by name: recorded before anything else. */
  readonly adopted?: {
    readonly ids: Readonly<Record<string, string>>;
    readonly outputs: Readonly<Record<string, string>>;
    readonly foundAs?: 'interrupted-create' | 'retained';
  };
  /** The state address this object is managed at until apply moves it here. */
  readonly movedFrom?: string;
  /** A replaced object whose delete has not succeeded yet (kept in state until it has). */
  readonly deposed?: boolean;
}

/** What a change must say; every other field has its empty default (nothing before or after, no notes...). */
export type ChangeFields = Pick<ResourceChange, 'stack' | 'address' | 'type' | 'action' | 'replaceOrder'> & Partial<ResourceChange>;

/** The one place a ResourceChange is made: `fields` over the empty defaults. */
export function resourceChange(fields: ChangeFields): ResourceChange {
  return {
    before: null,
    after: null,
    changes: [],
    drift: [],
    vanished: false,
    replaceReasons: [],
    notes: [],
    problems: [],
    facts: {},
    sensitivePaths: [],
    dependsOn: [],
    observedVersion: null,
    ...fields,
  };
}

/** State keys of deposed objects: the address they were replaced at, `#deposed`, a number. */
export const DEPOSED_MARK = '#deposed';

export function isDeposedKey(key: string): boolean {
  return key.includes(DEPOSED_MARK);
}

export interface StackPlanHeader {
  readonly name: string;
  readonly lineage: string;
  readonly serial: number;
  readonly organizationId: string;
  readonly locationId: string;
}

/**
 * A machine a fragment change of the plan reaches: what it runs differently, its config
 * resolved with its fragments before the plan and after it (paths as the machine runs
 * them, secrets masked as in the rest of the plan).
 */
export interface ResolvedMachineChange {
  readonly stack: string;
  readonly address: string;
  readonly machine: string;
  /** The fragments the plan changes that the machine reaches (nested imports included). */
  readonly fragments: ReadonlyArray<{ readonly id: string; readonly name: string | undefined; readonly address: string }>;
  readonly changes: readonly AttributeChange[];
  /** The modules the machine restarts (by registry id, else name), and why. */
  readonly restarts: ReadonlyArray<{ readonly module: string; readonly why: string }>;
}

/**
 * A change the windows would hold if it were applied now: its stack's windows are closed, its
 * machine's location's are, it depends on a machine so held, or its rollout pauses before it.
 */
export interface WindowHold {
  readonly stack: string;
  /** The change held, or a machine of a fragment's rollout wave. */
  readonly address: string;
  /** Whose windows: the stack's (the reconciler's `--window` flags and the stack's own), or a location's. */
  readonly scope: 'stack' | 'location';
  /** The location's name (else its id), for a location's windows. */
  readonly location?: string;
  /** Why the windows are closed, e.g. `inside the deny window deny:0 9 * * 1-5:8h:Europe/Berlin`. */
  readonly reason: string;
  /** When they open (ISO time); absent when no opening comes within a year, or a manual override closed them. */
  readonly until?: string;
  /** Held with another change: the machine it depends on. */
  readonly dependsOn?: string;
  /** Held because its rollout pauses before this wave (at the machine `machine`). */
  readonly rollout?: { readonly name: string; readonly wave: number; readonly machine: string };
}

/** What the windows would hold of a plan, as of `checkedAt`. */
export interface WindowHolds {
  readonly checkedAt: string;
  readonly holds: readonly WindowHold[];
}

export interface Plan {
  readonly formatVersion: '1.0';
  readonly createdAt: string;
  readonly stacks: readonly StackPlanHeader[];
  readonly changes: readonly ResourceChange[];
  /** Set for `destroy` plans. */
  readonly destroy: boolean;
  /** The addresses a targeted plan was limited to (`--target`): nothing else was read or planned. */
  readonly targets?: readonly string[];
  /** The waves in which apply stages machine updates, for stacks with a rollout policy. */
  readonly rollouts?: readonly RolloutPlan[];
  /** The machines the plan's fragment changes reach, when it changes a fragment that machines of its stacks import. */
  readonly resolvedMachines?: readonly ResolvedMachineChange[];
  /** Set when the plan was checked against windows (its stacks or their locations have some): what they would hold now. */
  readonly windows?: WindowHolds;
}

export interface PlanSummary {
  readonly add: number;
  readonly change: number;
  readonly destroy: number;
  readonly forget: number;
  readonly adopt: number;
  readonly move: number;
  readonly drifted: number;
  readonly problems: number;
}

export function summarize(changes: readonly ResourceChange[]): PlanSummary {
  const count = (p: (c: ResourceChange) => boolean): number => changes.filter(p).length;
  return {
    add: count((c) => c.action === 'create' || c.action === 'replace'),
    change: count((c) => c.action === 'update'),
    destroy: count((c) => c.action === 'delete' || c.action === 'replace'),
    forget: count((c) => c.action === 'forget'),
    adopt: count((c) => c.adopted !== undefined),
    move: count((c) => c.movedFrom !== undefined),
    drifted: count((c) => c.drift.length > 0 || c.vanished),
    problems: changes.reduce((n, c) => n + c.problems.length, 0),
  };
}

export function hasChanges(plan: Plan): boolean {
  return plan.changes.some((c) => c.action !== 'no-op');
}
