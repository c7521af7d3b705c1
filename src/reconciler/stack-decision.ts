/**
 * What the reconciler does with one stack's plan this cycle, decided from the plan, the
 * stack's policy, what it remembers of earlier cycles and the time (as window verdicts):
 * apply some of the changes, or wait and say why. Nothing here acts; the reconciler emits,
 * records and applies what the decision says.
 */
import type { SyncWindow, WindowVerdict } from '../domain/sync-windows';
import type { RolloutPlan } from '../domain/rollout';
import {
  heldText,
  type LocationHeld,
  locationPass,
  type LocationWindows,
  type PlanSummary,
  type ResourceChange,
  type RolloutJournal,
  summarize,
} from '../engine';
import type { WaitingFor } from './events';
import { changesFingerprint, isDrift, type StackPolicy } from './policy';
import { isDue, rolloutHold } from './held-rollout';

export interface StackDecisionInput {
  readonly stack: string;
  readonly policy: StackPolicy;
  /** The stack's planned changes that may be applied, no-ops left out. */
  readonly changes: readonly ResourceChange[];
  /** The addresses whose objects drifted, as reported this cycle. */
  readonly drifted: readonly string[];
  /** The problems the plan found in the stack, each as `address: message`. */
  readonly problems: readonly string[];
  /** The stack's rollout journal, when it has one. */
  readonly journal: RolloutJournal | undefined;
  /** The journals of the stack's fragment rollouts. */
  readonly fragmentJournals?: readonly RolloutJournal[];
  /** The time now (ms): when a rollout's scheduled start is due. */
  readonly now: number;
  readonly rollouts: readonly RolloutPlan[];
  /** A plan destroying more objects than this waits for an approval, whatever the policy. */
  readonly maxDestroy: number;
  /** What the stack remembers: a rollout stopped on this commit, and the changes approved. */
  readonly memory: { readonly stoppedText?: string; readonly approved?: string };
  /** Whether windows are open now (the clock and any override are in it). */
  readonly verdict: (windows: readonly SyncWindow[]) => WindowVerdict;
  /** The project's windows per location, when its machines have locations with windows. */
  readonly locations: LocationWindows | undefined;
}

/** Why nothing is written this cycle without it being a wait: nothing to do, or the policy only reports. */
export type QuietReason = 'nothing-to-apply' | 'plan-only';

export type StackDecision =
  | { readonly kind: 'refuse'; readonly problems: readonly string[] }
  | { readonly kind: 'quiet'; readonly why: QuietReason }
  | StackWait
  | StackApply;

export interface StackWait {
  readonly kind: 'wait';
  readonly for: WaitingFor;
  readonly reason: string;
  /** The changes waiting, so a lasting wait is said once. */
  readonly fingerprint: string;
  /** What it would apply. */
  readonly summary: PlanSummary;
  /** Set when the stack's own gates let the changes through and its machines' locations hold them. */
  readonly locations?: LocationWait;
  /** When the wait is over by itself (a rollout's scheduled start): the reconciler cycles then. */
  readonly wakeAt?: number;
}

export interface LocationWait {
  /** Machines held back by their locations' windows. */
  readonly held: readonly LocationHeld[];
  /** Set when the next rollout wave waits on a location's window. */
  readonly nextWaveHeld?: string;
}

export interface StackApply {
  readonly kind: 'apply';
  readonly writable: readonly ResourceChange[];
  /** Every change written is a repair of drift. */
  readonly healOnly: boolean;
  /** The drifted objects this apply puts back. */
  readonly healing: readonly string[];
  readonly fingerprint: string;
  /** Machines held back by their locations' windows while the rest applies. */
  readonly held: readonly LocationHeld[];
}

/** The decision for one stack, gate by gate: problems, drift policy, plan-only, a stopped rollout, approval, windows, locations. */
export function decideStack(input: StackDecisionInput): StackDecision {
  if (input.problems.length > 0) return { kind: 'refuse', problems: input.problems };
  const { policy } = input;
  const journals = [...(input.journal ? [input.journal] : []), ...(input.fragmentJournals ?? [])];
  // An interrupted run goes on, and so does one whose scheduled start has come.
  const resume = input.journal?.status === 'running' || journals.some((j) => isDue(j, input.now));
  // warn and off leave drifted objects as they are: a change to one of them waits until the drift is gone or healed by hand.
  const heldByDrift = new Set(policy.drift === 'heal' ? [] : input.drifted);
  const toApply = input.changes.filter((c) => !heldByDrift.has(c.address));
  // A rollout its pacing holds holds the whole stack (applying would only find it held again), said even with nothing else to apply.
  const hold = rolloutHold(journals, input.now);
  if (hold)
    return {
      kind: 'wait',
      for: hold.for,
      reason: hold.reason,
      fingerprint: changesFingerprint(toApply),
      summary: summarize(toApply),
      ...(hold.wakeAt === undefined ? {} : { wakeAt: hold.wakeAt }),
    };
  if (toApply.length === 0 && !resume) return { kind: 'quiet', why: 'nothing-to-apply' };
  const healOnly = toApply.length > 0 && toApply.every(isDrift);
  if (policy.apply === 'plan-only' && !healOnly) return { kind: 'quiet', why: 'plan-only' };

  const fingerprint = changesFingerprint(toApply);
  const summary = summarize(toApply);
  const wait = (waitingFor: WaitingFor, reason: string, locations?: LocationWait): StackWait => ({
    kind: 'wait',
    for: waitingFor,
    reason,
    fingerprint,
    summary,
    ...(locations ? { locations } : {}),
  });
  if (input.memory.stoppedText !== undefined)
    return wait('retry', `${input.memory.stoppedText}; a new commit or \`fleetform reconcile approve ${input.stack}\` retries it`);

  const approval = approvalReason(policy, summary, input.maxDestroy, healOnly, toApply.length);
  if (approval && input.memory.approved !== fingerprint) return wait('approval', approval);

  const window = input.verdict(policy.windows);
  if (!window.open) return wait('window', window.reason ?? 'outside its windows');

  const pass = input.locations
    ? locationPass({
        locations: input.locations,
        stack: input.stack,
        toApply,
        rollouts: input.rollouts,
        journal: input.journal,
        verdict: input.verdict,
      })
    : { writable: toApply, held: [] };
  if (pass.nextWaveHeld || (pass.writable.length === 0 && !resume)) {
    const reason = [heldText(pass.held), pass.nextWaveHeld ? `its rollout's next wave waits: ${pass.nextWaveHeld}` : '']
      .filter((t) => t !== '')
      .join('; ');
    return wait('window', reason, { held: pass.held, ...(pass.nextWaveHeld ? { nextWaveHeld: pass.nextWaveHeld } : {}) });
  }
  const writing = new Set(pass.writable.map((c) => c.address));
  const healing = input.drifted.filter((a) => !heldByDrift.has(a) && writing.has(a));
  return { kind: 'apply', writable: pass.writable, healOnly, healing, fingerprint, held: pass.held };
}

/** Why the changes wait for an approval: too many destroyed, or a policy of approve for anything but a repair of drift. */
function approvalReason(
  policy: StackPolicy,
  summary: PlanSummary,
  maxDestroy: number,
  healOnly: boolean,
  count: number,
): string | undefined {
  if (summary.destroy > maxDestroy) return `it destroys ${summary.destroy} object(s), more than --max-destroy ${maxDestroy}`;
  if (policy.apply === 'approve' && !healOnly && count > 0) return "the stack's policy is approve";
  return undefined;
}
