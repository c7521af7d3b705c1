/**
 * What a rollout's journal keeps of its pacing: why it is held (a pause step, its schedule's
 * stop or start), the holds someone released, and the machines that joined it late.
 */
import { z } from 'zod';

export const JOURNAL_STATUSES = ['running', 'paused', 'waiting', 'completed', 'stopped', 'aborted'] as const;
export type JournalStatus = (typeof JOURNAL_STATUSES)[number];

/** Whether an apply goes on with a journal in this status (held ones stay held until released or due). */
export function isUnfinished(status: JournalStatus): boolean {
  return status === 'running' || status === 'paused' || status === 'waiting';
}

export const HOLD_KINDS = ['pause-step', 'stop-by', 'not-before'] as const;
export type HoldKind = (typeof HOLD_KINDS)[number];

export const JournalHoldSchema = z.object({
  kind: z.enum(HOLD_KINDS),
  /** The wave it holds the rollout before (or in, for a stop within a wave). */
  wave: z.number().int().positive(),
  since: z.string(),
  /** For `not-before`: when it may start. */
  until: z.string().optional(),
});
export type JournalHold = z.infer<typeof JournalHoldSchema>;

export const LateJoinerSchema = z.object({
  address: z.string(),
  name: z.string(),
  /** The wave it was put in. */
  wave: z.number().int().positive(),
  /** When a run found it. */
  at: z.string(),
});
export type LateJoiner = z.infer<typeof LateJoinerSchema>;

/** The journal's pacing fields. */
export const JournalPacingFields = {
  hold: JournalHoldSchema.optional(),
  /** Waves whose pause step was released. */
  released: z.array(z.number().int().positive()).optional(),
  /** Set once a stop at `stop_by` was released: the schedule's stop no longer holds it. */
  stop_released: z.boolean().optional(),
  late_joiners: z.array(LateJoinerSchema).optional(),
};

/** A held journal released: its pause step (or its schedule's stop) no longer holds it, and the next apply goes on. */
export function releasedJournal<J extends { status: JournalStatus; hold?: JournalHold; released?: number[]; stop_released?: boolean }>(
  journal: J,
): J {
  const { hold, ...rest } = journal;
  if (!hold || journal.status !== 'paused') return journal;
  const next = { ...rest, status: 'running' as const } as J;
  if (hold.kind === 'pause-step') next.released = [...new Set([...(journal.released ?? []), hold.wave])];
  if (hold.kind === 'stop-by') next.stop_released = true;
  return next;
}

/** The command that releases a held rollout. */
export function resumeCommand(stack: string, rollout: string, fragment: boolean): string {
  return `fleetform rollout resume ${stack}${fragment ? ` --rollout ${rollout}` : ''}`;
}

/** How to release a held journal, in words. */
export function releaseHint(stack: string, rollout: string, fragment: boolean): string {
  return `release it with \`${resumeCommand(stack, rollout, fragment)}\``;
}
