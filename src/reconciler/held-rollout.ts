/**
 * A stack's rollout its pacing holds, as the reconciler reads it: a paused one (a pause step,
 * its schedule's stop) waits for a person to release it, and the stack applies nothing
 * meanwhile; a waiting one (its schedule's start ahead) waits until that time, then goes on
 * like an interrupted run. Pure: the journals and the time in, what holds the stack out.
 */
import { releaseHint, type RolloutJournal } from '../engine';

/** What holds the stack, said in its status and announced once while it lasts. */
export interface RolloutHold {
  readonly for: 'release' | 'schedule';
  readonly reason: string;
  /** For a scheduled start: when it is due (ms), so the reconciler wakes then. */
  readonly wakeAt?: number;
}

/** When a waiting journal may go on (ms); undefined when it does not say. */
function dueAt(journal: RolloutJournal): number | undefined {
  const until = journal.hold?.until;
  const at = until === undefined ? NaN : Date.parse(until);
  return Number.isNaN(at) ? undefined : at;
}

/** Whether a journal waits for its schedule's start and that time has come (one that does not say when is due). */
export function isDue(journal: RolloutJournal, now: number): boolean {
  return journal.status === 'waiting' && (dueAt(journal) ?? now) <= now;
}

function pausedReason(j: RolloutJournal): string {
  const h = j.hold;
  const why =
    h?.kind === 'pause-step'
      ? `a pause step holds it before wave ${h.wave}`
      : `its schedule's stop (${j.plan.policy.pacing?.schedule?.stop_by ?? '?'}) holds it at wave ${h?.wave ?? j.wave}`;
  return `rollout ${j.plan.policy.name} is paused: ${why}; ${releaseHint(j.stack, j.plan.policy.name, j.plan.fragment !== undefined)}, and the next cycle goes on`;
}

/** What holds the stack among its rollouts' journals (a paused one first), or undefined when none does now. */
export function rolloutHold(journals: readonly RolloutJournal[], now: number): RolloutHold | undefined {
  const paused = journals.find((j) => j.status === 'paused');
  if (paused) return { for: 'release', reason: pausedReason(paused) };
  const waiting = journals.find((j) => j.status === 'waiting' && !isDue(j, now));
  if (!waiting) return undefined;
  const at = dueAt(waiting) ?? now;
  return {
    for: 'schedule',
    reason: `rollout ${waiting.plan.policy.name} starts wave ${waiting.hold?.wave ?? waiting.wave} at ${new Date(at).toISOString()}, as its schedule says; it goes on then`,
    wakeAt: at,
  };
}
