/**
 * What a reconciler tells the world: the events it emits (to webhooks, logs, metrics and a
 * dashboard), its status, and the handle a dashboard or a test drives it by. The events are
 * zod schemas, so their JSON schema (`fleetform reconcile events-schema`) is derived from the
 * same declaration the code is typed by. No event holds a secret or a webhook URL.
 */
import { z } from 'zod';

export const APPLY_POLICIES = ['auto', 'approve', 'plan-only'] as const;
export type ApplyPolicy = (typeof APPLY_POLICIES)[number];
export const DRIFT_POLICIES = ['heal', 'warn', 'off'] as const;
export type DriftPolicy = (typeof DRIFT_POLICIES)[number];

const base = {
  /** When it happened, ISO 8601. */
  at: z.string(),
  /** The cycle it belongs to (1-based, counted by this process). */
  cycle: z.number().int().nonnegative(),
};
const stackBase = { ...base, stack: z.string() };

export const ReconcilerEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('cycle-started'),
    ...base,
    /** `retry`: the wait after a failed cycle is over. */
    reason: z.enum(['start', 'commit', 'interval', 'heal-now', 'approval', 'window', 'retry']),
    commit: z.string().optional(),
  }),
  z.object({
    type: z.literal('cycle-finished'),
    ...base,
    seconds: z.number(),
    commit: z.string().optional(),
    changes: z.number().int(),
    drifted: z.number().int(),
  }),
  z.object({
    type: z.literal('cycle-failed'),
    ...base,
    commit: z.string().optional(),
    error: z.string(),
    hint: z.string().optional(),
    where: z.string().optional(),
  }),
  z.object({ type: z.literal('drift-found'), ...stackBase, objects: z.array(z.string()), policy: z.enum(DRIFT_POLICIES) }),
  z.object({ type: z.literal('drift-healed'), ...stackBase, objects: z.array(z.string()) }),
  z.object({
    type: z.literal('approval-needed'),
    ...stackBase,
    reason: z.string(),
    add: z.number().int(),
    change: z.number().int(),
    destroy: z.number().int(),
  }),
  z.object({
    type: z.literal('apply-waiting'),
    ...stackBase,
    reason: z.string(),
    /** Set when only the machines of one location wait (its windows are closed): the location and those machines' addresses. */
    location: z.string().optional(),
    machines: z.array(z.string()).optional(),
  }),
  z.object({ type: z.literal('apply-started'), ...stackBase, changes: z.number().int(), heal: z.boolean() }),
  z.object({
    type: z.literal('apply-finished'),
    ...stackBase,
    applied: z.number().int(),
    failed: z.array(z.string()),
    seconds: z.number(),
  }),
  z.object({
    type: z.literal('wave-passed'),
    ...stackBase,
    rollout: z.string(),
    wave: z.number().int(),
    seconds: z.number(),
    outcome: z.string(),
  }),
  z.object({ type: z.literal('rollout-paused'), ...stackBase, rollout: z.string(), wave: z.number().int(), reason: z.string() }),
  /** One measurement of a wave's analysis, as it is taken: its result, the wave's value (and the baseline's), and why. */
  z.object({
    type: z.literal('rollout-measurement'),
    ...stackBase,
    rollout: z.string(),
    wave: z.number().int(),
    analysis: z.string(),
    result: z.enum(['pass', 'fail', 'inconclusive']),
    value: z.number().optional(),
    baseline: z.number().optional(),
    why: z.string(),
  }),
  z.object({
    type: z.literal('rollout-stopped'),
    ...stackBase,
    rollout: z.string(),
    wave: z.number().int(),
    reason: z.string(),
    rolledBack: z.boolean(),
  }),
  z.object({ type: z.literal('leader'), ...base, holder: z.string(), leading: z.boolean() }),
  /** An action someone took on the dashboard the reconciler serves (an approval, a heal, a rollout aborted or resumed). */
  z.object({ type: z.literal('dashboard-action'), ...base, stack: z.string().optional(), ok: z.boolean(), message: z.string() }),
]);

/** One event, as webhooks receive it (JSON) and `subscribe` listeners get it. */
export type ReconcilerEvent = z.infer<typeof ReconcilerEventSchema>;
export type ReconcilerEventType = ReconcilerEvent['type'];
/** Events without the fields the reconciler stamps (`at`, `cycle`). */
export type EventBody = ReconcilerEvent extends infer E ? (E extends ReconcilerEvent ? Omit<E, 'at' | 'cycle'> : never) : never;

/** The JSON schema of one event (draft 2020-12), for receivers to validate against. */
export function eventJsonSchema(): unknown {
  return z.toJSONSchema(ReconcilerEventSchema, { target: 'draft-2020-12' });
}

/** What a held stack waits for: an approval, a window, a retry, the release of its paused rollout, or its rollout's scheduled start. */
export const WAITING_FOR = ['approval', 'window', 'retry', 'release', 'schedule'] as const;
export type WaitingFor = (typeof WAITING_FOR)[number];

/** What one stack waits for, when the reconciler holds it. */
export interface StackStatus {
  readonly stack: string;
  readonly apply: ApplyPolicy;
  readonly drift: DriftPolicy;
  /** Changes its last plan had (drift included). */
  readonly changes: number;
  readonly drifted: readonly string[];
  /** Set while it waits: for an approval, for a window to open, or (its rollout stopped on this commit) for a new commit or a retry. */
  readonly waiting?: { readonly for: WaitingFor; readonly reason: string; readonly since: string };
  readonly lastApply?: { readonly at: string; readonly applied: number; readonly failed: number };
  /** Machines held back by their location's closed windows while the stack's other changes apply, by location. */
  readonly held?: ReadonlyArray<{ readonly location: string; readonly reason: string; readonly machines: readonly string[] }>;
  /** How many of its changes (and machines of a fragment's rollout) the windows would hold now, as its last full plan says. */
  readonly windowHeld?: number;
}

/** What the reconciler is doing, as `fleetform reconcile status` and the dashboard show it. */
export interface ReconcilerStatus {
  readonly state: 'starting' | 'idle' | 'cycling' | 'standby' | 'stopped';
  readonly leader: boolean;
  readonly cycle: number;
  readonly commit?: string;
  readonly lastCycle?: { readonly at: string; readonly ok: boolean; readonly seconds: number; readonly error?: string };
  readonly nextCheckAt?: string;
  readonly stacks: readonly StackStatus[];
  readonly override?: { readonly windows: 'open' | 'closed'; readonly until?: string };
  /** Set while cycles fail: the step and cause of the last failure, how many in a row, and when the next cycle is due. */
  readonly failing?: {
    readonly stage: 'fetch' | 'install' | 'synth' | 'lease' | 'plan';
    readonly cause: string;
    readonly error: string;
    readonly commit: string;
    readonly failures: number;
    readonly since: string;
    readonly retryAt: string;
  };
}

/** The programmatic surface of a running reconciler: what its HTTP routes and a dashboard use. */
export interface ReconcilerHandle {
  status(): ReconcilerStatus;
  /** Calls `listener` with every event from now on; returns the function that stops it. */
  subscribe(listener: (event: ReconcilerEvent) => void): () => void;
  /** Approves the plan the stack waits on, or retries its rollout stopped on this commit (its next cycle applies); false when it waits on neither. */
  approve(stack: string): boolean;
  /** Starts a cycle now (a drift check and heal by policy), or after the running one. */
  healNow(): void;
  /** Looks for a new commit now rather than at the next poll (what a git host's push webhook asks). */
  refresh(): void;
  /** Opens (or closes) every window until `untilMs` (epoch ms), or clears the override with undefined. */
  overrideWindows(mode: 'open' | 'closed' | undefined, untilMs?: number): void;
}
