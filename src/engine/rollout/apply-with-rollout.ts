/**
 * Applies one stack whose plan has a rollout: every other change first, as a plain apply,
 * then the machine updates wave by wave through the runner.
 */
import { FleetformError } from '../../domain/errors';
import type { RolloutPlan } from '../../domain/rollout';
import { applyStack, type ApplyOutcome, type ApplyStackInput } from '../apply/executor';
import type { MachineStatusSource } from '../health/machine-status-source';
import type { RolloutEvents, RolloutOutcome, WaveBoundary } from './events';
import type { RolloutJournal, RolloutJournalStore } from './journal';
import { runRollout } from './runner';

/** A machine of a rollout that did not pass, as an apply failure. */
export class RolloutMachineError extends FleetformError {}

export interface ApplyWithRolloutInput extends ApplyStackInput {
  readonly rollout: RolloutPlan;
  readonly source: MachineStatusSource;
  readonly events: RolloutEvents;
  readonly journal: RolloutJournalStore;
  readonly resume: RolloutJournal | undefined;
  readonly waveBoundary?: WaveBoundary;
}

export async function applyWithRollout(input: ApplyWithRolloutInput): Promise<ApplyOutcome & { rollout: RolloutOutcome | undefined }> {
  const { rollout, backend } = input;
  const staged = new Set(rollout.waves.flatMap((w) => w.machines.map((m) => m.address)));
  const first = input.changes.filter((c) => !staged.has(c.address));
  const before = first.length > 0 ? await applyStack({ ...input, changes: first }) : { applied: 0, failed: [], skipped: [] };
  if (before.failed.length > 0) {
    // The waves wait for a stack whose other changes went through.
    return { ...before, skipped: [...before.skipped, ...staged], rollout: undefined };
  }
  const changes = new Map(input.changes.map((c) => [c.address, c]));
  let applied = before.applied;
  const outcome = await runRollout({
    plan: rollout,
    changes,
    apply: async (wave) => {
      const r = await applyStack({ ...input, changes: wave, state: await backend.read(input.stack.name) });
      applied += r.applied;
      return r;
    },
    readState: () => backend.read(input.stack.name),
    restoreEntries: async (entries) => {
      const state = await backend.read(input.stack.name);
      for (const [address, entry] of entries) state.resources[address] = entry;
      state.serial += 1;
      await backend.write(state);
    },
    client: input.ctx.client,
    source: input.source,
    events: input.events,
    concurrency: Math.max(input.parallelism, 16),
    journal: input.journal,
    ...(input.resume ? { resume: input.resume } : {}),
    ...(input.waveBoundary ? { waveBoundary: input.waveBoundary } : {}),
  });
  const machines = outcome.waves.flatMap((w) => w.machines);
  const failed = machines
    .filter((m) => m.result === 'failed')
    .map((m) => ({ address: m.address, error: new RolloutMachineError(`rollout ${rollout.policy.name}: ${m.machine} failed: ${m.why ?? ''}`, { path: m.address }) }));
  const skipped = machines.filter((m) => m.result === 'skipped' || m.result === 'not reached').map((m) => m.address);
  return { applied, failed: [...before.failed, ...failed], skipped: [...before.skipped, ...skipped], rollout: outcome };
}
