/**
 * Applies a fragment's rollout: the machines following its latest revision are pinned to
 * the revision they run, the fragment's new revision is saved, then the waves pin their
 * machines to it behind the gate. Once the last wave is healthy the tags following the
 * fragment move to it and every pin is lifted (each import follows what it followed);
 * stopped, the machines written go back to the version they followed (a machine following
 * the latest revision, now the failed one, stays pinned to the old) and the tags stay.
 * Journaled as the stack's rollout is, under its own key: a killed apply goes on.
 */
import { FleetformError } from '../../domain/errors';
import { importedVersion, rolloutJournalKey, type RolloutPlan } from '../../domain/rollout';
import { applyStack, type ApplyOutcome, type ApplyStackInput } from '../apply/executor';
import type { DesiredStack } from '../desired/stack';
import type { ResourceChange } from '../plan/model';
import type { MachineStatusSource } from '../health/machine-status-source';
import { mapLimited } from '../map-limited';
import type { RolloutEvents, RolloutOutcome } from './events';
import { fragmentStage, pinImport } from './fragment-stage';
import type { RolloutJournal, RolloutJournalStore } from './journal';
import { isFragmentPinChange } from './plan';
import { runRollout } from './runner';

/** A fragment's rollout that could not start or finish. */
export class FragmentRolloutError extends FleetformError {}

export interface ApplyFragmentRolloutInput extends ApplyStackInput {
  readonly rollout: RolloutPlan;
  readonly source: MachineStatusSource;
  readonly events: RolloutEvents;
  readonly journal: RolloutJournalStore;
  readonly resume: RolloutJournal | undefined;
}

/** The addresses a fragment's rollout applies itself: the fragment and the tags following it. */
export function fragmentRolloutAddresses(rollout: RolloutPlan): string[] {
  return rollout.fragment ? [rollout.fragment.address, ...rollout.fragment.tags.map((t) => t.address)] : [];
}

/** A fragment rollout an apply runs: planned, or interrupted (journaled as running) and going on. */
export interface FragmentRolloutRun {
  readonly rollout: RolloutPlan;
  readonly resume: RolloutJournal | undefined;
}

/** The stack's fragment rollouts this apply runs: those planned, and each interrupted one. */
export async function fragmentRolloutsToRun(journals: RolloutJournalStore, stack: DesiredStack, planned: readonly RolloutPlan[]): Promise<FragmentRolloutRun[]> {
  const out: FragmentRolloutRun[] = [];
  for (const policy of stack.fragmentRollouts ?? []) {
    const journal = await journals.read(rolloutJournalKey(stack.name, policy));
    const resume = journal?.status === 'running' ? journal : undefined;
    const rollout = planned.find((r) => r.stack === stack.name && r.fragment && r.policy.name === policy.name) ?? resume?.plan;
    if (rollout) out.push({ rollout, resume });
  }
  return out;
}

/** The changes left to the stack's own apply: a fragment's rollout applies its fragment and tags, and lifts its machines' pins. */
export function leftByFragmentRollouts(changes: readonly ResourceChange[], runs: readonly FragmentRolloutRun[]): ResourceChange[] {
  const machines = new Set(runs.flatMap((f) => f.rollout.waves.flatMap((w) => w.machines.map((m) => m.address))));
  const staged = new Set(runs.flatMap((f) => fragmentRolloutAddresses(f.rollout)));
  return changes.filter((c) => !staged.has(c.address) && !(machines.has(c.address) && isFragmentPinChange(c)));
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export async function applyFragmentRollout(input: ApplyFragmentRolloutInput): Promise<ApplyOutcome & { rollout: RolloutOutcome | undefined }> {
  const { backend, events, resume } = input;
  const plan: RolloutPlan = resume ? { ...resume.plan, ...(input.rollout.resumes ? { resumes: input.rollout.resumes } : {}) } : input.rollout;
  const target = plan.fragment;
  const name = plan.policy.name;
  const say = (detail: string): void => events({ type: 'fragment', rollout: name, detail });
  const failure = (error: FleetformError): ApplyOutcome & { rollout: undefined } => ({ applied: 0, failed: [{ address: target?.address ?? input.stack.name, error }], skipped: fragmentRolloutAddresses(plan).slice(1), rollout: undefined });
  if (!target) return failure(new FragmentRolloutError(`rollout ${name} names no fragment`, { path: name }));
  const client = input.ctx.client;
  const changes = new Map(input.changes.map((c) => [c.address, c]));
  const machines = plan.waves.flatMap((w) => w.machines);
  const follows = new Map(machines.map((m) => [m.address, m.follows ?? '']));
  let applied = 0;

  const fragmentId = (await backend.read(input.stack.name)).resources[target.address]?.ids.id;
  if (!fragmentId) return failure(new FragmentRolloutError(`rollout ${name}: fragment ${target.address} is not in the state`, { path: target.address, hint: 'apply the fragment first; its next change rolls out' }));
  const from = target.from_revision ?? (await client.appClient.getFragment(fragmentId)).fragment.revision;
  const started = new Date().toISOString();
  let journal: RolloutJournal = resume ?? {
    format: 1,
    stack: plan.stack,
    status: 'running',
    started_at: started,
    updated_at: started,
    wave: 1,
    plan: { stack: plan.stack, policy: plan.policy, waves: plan.waves.map((w) => ({ rule: w.rule, machines: w.machines.map((m) => ({ ...m })) })), fragment: { ...target, id: fragmentId, from_revision: from } },
    machines: [],
  };

  if (journal.plan.fragment?.to_revision === undefined) {
    await input.journal.write(journal);
    // Machines following the latest revision keep the one they run while the new one is saved.
    const latest = machines.filter((m) => (m.follows ?? '') === '');
    const state = await backend.read(input.stack.name);
    const pins = await mapLimited(latest, Math.max(input.parallelism, 16), async (m) => {
      const partId = state.resources[m.address]?.ids.part_id;
      if (!partId) return `${m.name}: no part in the state`;
      try {
        // A machine pinned already (by a rollout that stopped) keeps its pin.
        const part = await client.appClient.getMachinePart(partId);
        if ((importedVersion(part.config as Record<string, unknown>, fragmentId) ?? '') === '') await pinImport(client, partId, fragmentId, from);
        return undefined;
      } catch (err) {
        return `${m.name}: ${message(err)}`;
      }
    });
    const unpinned = pins.filter((p): p is string => p !== undefined);
    if (latest.length > 0) say(`${latest.length - unpinned.length} machine(s) following fragment ${target.name}'s latest revision pinned to the revision they run (${from}, unless pinned already) while the new one is saved`);
    if (unpinned.length > 0) return failure(new FragmentRolloutError(`rollout ${name}: could not pin machines to revision ${from} of fragment ${target.name}: ${unpinned.join('; ')}`, { path: target.address, hint: 'apply again; nothing of the fragment was written' }));
    const change = changes.get(target.address);
    if (change) {
      const r = await applyStack({ ...input, changes: [change], state: await backend.read(input.stack.name) });
      applied += r.applied;
      if (r.failed.length > 0) return { applied, failed: [...r.failed], skipped: fragmentRolloutAddresses(plan).slice(1), rollout: undefined };
    }
    const to = (await client.appClient.getFragment(fragmentId)).fragment.revision;
    say(change ? `fragment ${target.name} saved as revision ${to} (its revision was ${from})` : `fragment ${target.name}'s revision ${to} is still to reach its machines`);
    journal = { ...journal, updated_at: new Date().toISOString(), plan: { ...journal.plan, fragment: { ...target, id: fragmentId, from_revision: from, to_revision: to } } };
    await input.journal.write(journal);
  }
  const to = journal.plan.fragment?.to_revision ?? '';
  const outcome = await runRollout({
    plan: { ...plan, fragment: journal.plan.fragment ?? target },
    changes,
    apply: () => Promise.resolve({ applied: 0, failed: [], skipped: [] }),
    readState: () => backend.read(input.stack.name),
    restoreEntries: () => Promise.resolve(),
    client,
    source: input.source,
    events,
    concurrency: Math.max(input.parallelism, 16),
    journal: input.journal,
    resume: journal,
    stage: fragmentStage({ client, source: input.source, events, concurrency: Math.max(input.parallelism, 16), fragmentId, toRevision: to, fromRevision: from, follows }),
  });
  const tags = target.tags.map((t) => t.tag);
  outcome.fragment = { name: target.name, id: fragmentId, from_revision: from, to_revision: to, tags, tags_moved: false, pins_lifted: false };
  const results = outcome.waves.flatMap((w) => w.machines);
  const failed = results
    .filter((m) => m.result === 'failed')
    .map((m) => ({ address: m.address, error: new FragmentRolloutError(`rollout ${name}: ${m.machine} failed on revision ${to} of fragment ${target.name}: ${m.why ?? ''}`, { path: m.address }) }));
  if (outcome.outcome !== 'completed') {
    say(`${tags.length > 0 ? `tag(s) ${tags.join(', ')} not moved; ` : ''}machines following the latest revision stay pinned to the one they ran`);
    return { applied, failed, skipped: target.tags.map((t) => t.address), rollout: outcome };
  }

  // Every wave is healthy: the tags move, then each import follows what it followed. A
  // machine skipped (offline) keeps the revision it ran, pinned, for a later apply to gate.
  const skipped = new Set(results.filter((m) => m.result === 'skipped').map((m) => m.address));
  const tagRevisions = new Map((await client.appClient.getFragment(fragmentId)).tags.map((t) => [t.tag, t.revision]));
  const tagChanges = target.tags.flatMap((t) => changes.get(t.address) ?? []);
  if (tagChanges.length > 0) {
    const r = await applyStack({ ...input, changes: tagChanges, state: await backend.read(input.stack.name) });
    applied += r.applied;
    if (r.failed.length > 0) {
      say(`tag(s) ${tags.join(', ')} could not be moved to revision ${to}; the machines stay pinned to it`);
      return { applied, failed: [...failed, ...r.failed], skipped: [...skipped], rollout: outcome };
    }
  }
  outcome.fragment.tags_moved = true;
  const state = await backend.read(input.stack.name);
  const lifted = await mapLimited(machines, Math.max(input.parallelism, 16), async (m) => {
    const partId = state.resources[m.address]?.ids.part_id;
    const follows = m.follows ?? '';
    if (!partId) return `${m.name}: no part in the state`;
    // Following the latest revision, a skipped machine is pinned already (to the one it ran).
    if (skipped.has(m.address) && follows === '') return undefined;
    const version = skipped.has(m.address) ? tagRevisions.get(follows) : follows === '' ? undefined : follows;
    try {
      await pinImport(client, partId, fragmentId, version);
      return undefined;
    } catch (err) {
      return `${m.name}: ${message(err)}`;
    }
  });
  const stuck = lifted.filter((l): l is string => l !== undefined);
  outcome.fragment.pins_lifted = stuck.length === 0;
  const kept = skipped.size > 0 ? `; ${skipped.size} skipped machine(s) stay pinned to the revision they ran, for a later apply` : '';
  say(`${tags.length > 0 ? `tag(s) ${tags.join(', ')} moved to revision ${to}; ` : ''}pins lifted: ${machines.length - skipped.size - stuck.length} machine(s) follow what they followed${kept}`);
  const pinFailures = stuck.map((s) => ({ address: target.address, error: new FragmentRolloutError(`rollout ${name}: a pin could not be lifted: ${s}`, { path: target.address, hint: `set the machine's import of fragment ${target.name} back by hand` }) }));
  return { applied, failed: [...failed, ...pinFailures], skipped: [...skipped], rollout: outcome };
}
