/**
 * Releasing a held rollout: a pause step, or its schedule's stop, no longer holds it, and
 * the next apply goes on from the wave it was held at. Only a journal held that way is
 * released; anything else is a clear error naming what it is.
 */
import { FleetformError } from '../../domain/errors';
import type { StateBackend } from '../state/backend';
import type { RolloutJournal, RolloutJournalStore } from '../state/rollout-journal';
import { releasedJournal } from '../state/rollout-journal-pacing';

export interface ReleaseInput {
  readonly stack: string;
  /** A fragment rollout of the stack, by name; the stack's own when unset. */
  readonly rollout?: string;
  readonly journals: RolloutJournalStore;
}

async function journalOf(input: ReleaseInput): Promise<RolloutJournal | undefined> {
  if (input.rollout === undefined) return input.journals.read(input.stack);
  return (await input.journals.list(input.stack)).find((j) => j.plan.policy.name === input.rollout && j.plan.fragment);
}

/** Releases the held rollout of the stack (call under the stack's state lock); the journal as released. */
export async function releaseRollout(input: ReleaseInput): Promise<RolloutJournal> {
  const journal = await journalOf(input);
  if (!journal || journal.status !== 'paused' || !journal.hold) {
    const what = input.rollout === undefined ? 'rollout' : `fragment rollout ${input.rollout}`;
    const why = !journal
      ? `it has no ${what} journal`
      : journal.status === 'waiting'
        ? `its rollout ${journal.plan.policy.name} waits for its schedule's start (${journal.hold?.until ?? '?'}), which no release moves`
        : `its rollout ${journal.plan.policy.name} is ${journal.status}, not paused`;
    throw new FleetformError(`stack ${input.stack}: nothing to resume: ${why}`, {
      path: input.stack,
      hint:
        journal?.status === 'running'
          ? 'an interrupted rollout goes on with the next `fleetform apply`'
          : 'see where it stands with `fleetform rollout status`',
    });
  }
  const released = { ...releasedJournal(journal), updated_at: new Date().toISOString() };
  await input.journals.write(released);
  return released;
}

/**
 * Releases the stack's rollout if something of its pacing holds it (`paused`), taking the
 * stack's state lock for it (waiting up to `lockTimeoutMs`); the journal as released, or
 * undefined when it was not paused (an interrupted one goes on by itself with the next apply).
 */
export async function releaseIfPaused(
  input: ReleaseInput & { readonly backend: StateBackend; readonly lockTimeoutMs: number },
): Promise<RolloutJournal | undefined> {
  if ((await journalOf(input))?.status !== 'paused') return undefined;
  const lock = await input.backend.lock(input.stack, 'rollout resume', { timeoutMs: input.lockTimeoutMs });
  try {
    return (await journalOf(input))?.status === 'paused' ? await releaseRollout(input) : undefined;
  } finally {
    await lock.release();
  }
}
