/**
 * Rolls back a journaled rollout by hand: every machine it wrote and has not rolled back
 * goes back to its baseline config (from the part history, guarded by the revision the
 * rollout wrote), its state entry with it; the journal ends `aborted`.
 */
import type { ServiceClient } from '../../api/client';
import { FleetformError } from '../../domain/errors';
import type { MachineStatusSource } from '../health/machine-status-source';
import type { StateBackend } from '../state/backend';
import type { MachineOutcome, RolloutEvents } from './events';
import type { RolloutJournal, RolloutJournalStore } from '../state/rollout-journal';
import { isUnfinished } from '../state/rollout-journal-pacing';
import { fragmentStage } from './fragment-stage';
import { rollBack, type Written } from './runner';

export interface AbortInput {
  readonly stack: string;
  /** A fragment rollout of the stack, by name; the stack's own rollout when left out. */
  readonly rollout?: string;
  readonly journals: RolloutJournalStore;
  readonly backend: StateBackend;
  readonly client: ServiceClient;
  readonly source: MachineStatusSource;
  readonly events: RolloutEvents;
  readonly concurrency: number;
}

/** Whether a journal has machines an abort would write back. */
export function abortable(journal: RolloutJournal): boolean {
  return (isUnfinished(journal.status) || journal.status === 'stopped') && journal.machines.some((m) => m.result !== 'rolled back');
}

export async function abortRollout(input: AbortInput): Promise<{ journal: RolloutJournal; machines: MachineOutcome[] }> {
  const key =
    input.rollout === undefined
      ? input.stack
      : (await input.journals.list(input.stack)).find((j) => j.plan.policy.name === input.rollout && j.plan.fragment);
  const journal = typeof key === 'string' ? await input.journals.read(key) : key;
  if (!journal || !abortable(journal)) {
    const why = journal
      ? `its rollout ${journal.plan.policy.name} is ${journal.status} with nothing left to roll back`
      : input.rollout === undefined
        ? 'it has no rollout journal'
        : `it has no journal of a fragment rollout ${input.rollout}`;
    throw new FleetformError(`stack ${input.stack}: nothing to abort: ${why}`, {
      path: input.stack,
      hint: 'to undo a completed rollout, apply the configuration you want back',
    });
  }
  const now = Date.now();
  const written: Written[] = journal.machines
    .filter((m) => m.result !== 'rolled back')
    .map((m) => ({
      outcome: { machine: m.name, address: m.address, result: m.result === 'failed' ? 'failed' : 'healthy' },
      partId: m.part_id,
      baseline: { config: undefined, revision: m.baseline_revision },
      prior: m.prior,
      revision: m.written_revision,
      track: { writtenAt: now, verdict: 'pending', since: now },
    }));
  const fragment = journal.plan.fragment;
  if (fragment) {
    const follows = new Map(journal.plan.waves.flatMap((w) => w.machines.map((m) => [m.address, m.follows ?? ''] as const)));
    const stage = fragmentStage({
      ...input,
      fragmentId: fragment.id ?? '',
      toRevision: fragment.to_revision ?? '',
      fromRevision: fragment.from_revision ?? '',
      follows,
      tags: fragment.tags.map((t) => t.tag),
    });
    await stage.rollBack(written, journal.plan);
  } else
    await rollBack(
      {
        client: input.client,
        events: input.events,
        source: input.source,
        concurrency: input.concurrency,
        restoreEntries: async (entries) => {
          const state = await input.backend.read(input.stack);
          for (const [address, entry] of entries) state.resources[address] = entry;
          state.serial += 1;
          await input.backend.write(state);
        },
      },
      written,
      journal.plan,
    );
  const back = new Set(written.filter((w) => w.outcome.rollback?.ok).map((w) => w.outcome.address));
  const ended: RolloutJournal = {
    ...journal,
    status: 'aborted',
    updated_at: new Date().toISOString(),
    reason: 'aborted by hand',
    machines: journal.machines.map((m) => (back.has(m.address) ? { ...m, result: 'rolled back' } : m)),
  };
  await input.journals.write(ended);
  return { journal: ended, machines: written.map((w) => w.outcome) };
}
