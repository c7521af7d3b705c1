/**
 * The steps of a fragment's rollout around its waves: the machines following its latest
 * revision are pinned to the revision they run before the fragment's new revision is saved;
 * the waves pin their machines to the new revision behind the gate (see fragment-stage);
 * once every wave is healthy and the tags following the fragment moved to it, every pin is
 * lifted (each import follows what it followed). Stopped, the machines written go back to
 * the version they followed (a machine following the latest revision, now the failed one,
 * stays pinned to the old) and the tags stay. Journaled under its own key: a killed apply
 * goes on.
 */
import type { ServiceClient } from '../../api/client';
import { FleetformError, errorMessage } from '../../domain/errors';
import { importedVersion, type FragmentRolloutTarget, type RolloutPlan } from '../../domain/rollout';
import type { MachineStatusSource } from '../health/machine-status-source';
import { mapLimited } from '../map-limited';
import type { StateBackend } from '../state/backend';
import type { MachineOutcome, RolloutEvents, RolloutOutcome } from './events';
import { fragmentStage, pinImport } from './fragment-stage';
import type { RolloutJournal, RolloutJournalStore } from '../state/rollout-journal';
import type { RolloutStage } from './runner';

/** A fragment's rollout that could not start or finish. */
export class FragmentRolloutError extends FleetformError {}

/** What a fragment's rollout reads and writes besides the executor. */
export interface FragmentRolloutEnv {
  readonly stack: string;
  readonly backend: StateBackend;
  readonly client: ServiceClient;
  readonly source: MachineStatusSource;
  readonly events: RolloutEvents;
  readonly journals: RolloutJournalStore;
  /** The most machines pinned at once. */
  readonly concurrency: number;
}

/** One fragment rollout under way: the fragment, the revision its machines ran, and its journal. */
export interface FragmentRun {
  readonly env: FragmentRolloutEnv;
  readonly plan: RolloutPlan;
  readonly target: FragmentRolloutTarget;
  readonly fragmentId: string;
  readonly from: string;
  journal: RolloutJournal;
  /** The version each machine's import follows, by address: the plan's machines, and those that joined the waves since. */
  readonly follows: Map<string, string>;
}

/** Says how the fragment's rollout goes, as a rollout event. */
export function sayFragment(run: Pick<FragmentRun, 'env' | 'plan'>, detail: string): void {
  run.env.events({ type: 'fragment', rollout: run.plan.policy.name, detail });
}

/**
 * Starts (or picks up) a fragment's rollout: finds the fragment and the revision its machines
 * run, and journals the run. When the new revision is still to be saved, the machines following
 * the latest revision are pinned to the one they run first. A refusal comes back as the error.
 */
export async function openFragmentRollout(
  env: FragmentRolloutEnv,
  plan: RolloutPlan,
  resume: RolloutJournal | undefined,
  savesRevision: boolean,
): Promise<FragmentRun | FragmentRolloutError> {
  const target = plan.fragment;
  const name = plan.policy.name;
  if (!target) return new FragmentRolloutError(`rollout ${name} names no fragment`, { path: name });
  const fragmentId = (await env.backend.read(env.stack)).resources[target.address]?.ids.id;
  if (!fragmentId)
    return new FragmentRolloutError(`rollout ${name}: fragment ${target.address} is not in the state`, {
      path: target.address,
      hint: 'apply the fragment first; its next change rolls out',
    });
  const from = target.from_revision ?? (await env.client.appClient.getFragment(fragmentId)).fragment.revision;
  const follows = new Map(plan.waves.flatMap((w) => w.machines).map((m) => [m.address, m.follows ?? '']));
  const journal = resume ?? firstJournal(plan, target, fragmentId, from);
  const run: FragmentRun = { env, plan, target, fragmentId, from, journal, follows };
  if (!savesRevision) return run;
  await env.journals.write(run.journal);
  const unpinned = await pinLatestFollowers(run);
  return unpinned ?? run;
}

function firstJournal(plan: RolloutPlan, target: FragmentRolloutTarget, fragmentId: string, from: string): RolloutJournal {
  const started = new Date().toISOString();
  return {
    format: 1,
    stack: plan.stack,
    status: 'running',
    started_at: started,
    updated_at: started,
    wave: 1,
    plan: {
      stack: plan.stack,
      policy: plan.policy,
      waves: plan.waves.map((w) => ({ rule: w.rule, machines: w.machines.map((m) => ({ ...m })) })),
      fragment: { ...target, id: fragmentId, from_revision: from },
    },
    machines: [],
  };
}

/** Machines following the latest revision keep the one they run while the new one is saved; the error says which could not. */
async function pinLatestFollowers(run: FragmentRun): Promise<FragmentRolloutError | undefined> {
  const { env, fragmentId, from, target } = run;
  const latest = run.plan.waves.flatMap((w) => w.machines).filter((m) => (m.follows ?? '') === '');
  const state = await env.backend.read(env.stack);
  const pins = await mapLimited(latest, env.concurrency, async (m) => {
    const partId = state.resources[m.address]?.ids.part_id;
    if (!partId) return `${m.name}: no part in the state`;
    try {
      // A machine pinned already (by a rollout that stopped) keeps its pin.
      const part = await env.client.appClient.getMachinePart(partId);
      if ((importedVersion(part.config as Record<string, unknown>, fragmentId) ?? '') === '')
        await pinImport(env.client, partId, fragmentId, from);
      return undefined;
    } catch (err) {
      return `${m.name}: ${errorMessage(err)}`;
    }
  });
  const unpinned = pins.filter((p): p is string => p !== undefined);
  if (latest.length > 0)
    sayFragment(
      run,
      `${latest.length - unpinned.length} machine(s) following fragment ${target.name}'s latest revision pinned to the revision they run (${from}, unless pinned already) while the new one is saved`,
    );
  if (unpinned.length === 0) return undefined;
  return new FragmentRolloutError(
    `rollout ${run.plan.policy.name}: could not pin machines to revision ${from} of fragment ${target.name}: ${unpinned.join('; ')}`,
    { path: target.address, hint: 'apply again; nothing of the fragment was written' },
  );
}

/** Journals the revision the fragment's apply saved (`wrote`: this run wrote the fragment): the one its waves pin machines to. */
export async function recordSavedRevision(run: FragmentRun, wrote: boolean): Promise<void> {
  const { env, target, fragmentId, from } = run;
  const to = (await env.client.appClient.getFragment(fragmentId)).fragment.revision;
  sayFragment(
    run,
    wrote
      ? `fragment ${target.name} saved as revision ${to} (its revision was ${from})`
      : `fragment ${target.name}'s revision ${to} is still to reach its machines`,
  );
  run.journal = {
    ...run.journal,
    updated_at: new Date().toISOString(),
    plan: { ...run.journal.plan, fragment: { ...target, id: fragmentId, from_revision: from, to_revision: to } },
  };
  await env.journals.write(run.journal);
}

/** The revision the waves pin machines to. */
export function savedRevision(run: FragmentRun): string {
  return run.journal.plan.fragment?.to_revision ?? '';
}

/** How the waves write and put back machines: their imports pinned to the saved revision, and back. */
export function pinningStage(run: FragmentRun): RolloutStage {
  const { env } = run;
  return fragmentStage({
    client: env.client,
    source: env.source,
    events: env.events,
    concurrency: env.concurrency,
    fragmentId: run.fragmentId,
    toRevision: savedRevision(run),
    fromRevision: run.from,
    follows: run.follows,
    tags: run.target.tags.map((t) => t.tag),
  });
}

/** The rollout as the runner runs it: the journal's fragment, with the revisions it knows. */
export function runnerPlan(run: FragmentRun): RolloutPlan {
  return { ...run.plan, fragment: run.journal.plan.fragment ?? run.target };
}

/** Notes on the outcome what moved: the revisions and the tags (not moved yet, no pin lifted). */
export function noteFragment(run: FragmentRun, outcome: RolloutOutcome): void {
  outcome.fragment = {
    name: run.target.name,
    id: run.fragmentId,
    from_revision: run.from,
    to_revision: savedRevision(run),
    tags: run.target.tags.map((t) => t.tag),
    tags_moved: false,
    pins_lifted: false,
  };
}

/** A machine that did not pass its gate on the saved revision, as an apply failure. */
export function pinnedMachineError(run: FragmentRun, m: MachineOutcome): FragmentRolloutError {
  return new FragmentRolloutError(
    `rollout ${run.plan.policy.name}: ${m.machine} failed on revision ${savedRevision(run)} of fragment ${run.target.name}: ${m.why ?? ''}`,
    { path: m.address },
  );
}

/** Says why the tags stay: the waves did not all pass. */
export function sayStopped(run: FragmentRun): void {
  const tags = run.target.tags.map((t) => t.tag);
  sayFragment(
    run,
    `${tags.length > 0 ? `tag(s) ${tags.join(', ')} not moved; ` : ''}machines following the latest revision stay pinned to the one they ran`,
  );
}

/** Says the tags could not move: the machines stay pinned. */
export function sayTagsStuck(run: FragmentRun): void {
  sayFragment(
    run,
    `tag(s) ${run.target.tags.map((t) => t.tag).join(', ')} could not be moved to revision ${savedRevision(run)}; the machines stay pinned to it`,
  );
}

/** The revision each tag of the fragment names, read before the tags move: the one a skipped machine following it ran. */
export async function tagRevisions(run: FragmentRun): Promise<ReadonlyMap<string, string>> {
  return new Map((await run.env.client.appClient.getFragment(run.fragmentId)).tags.map((t) => [t.tag, t.revision]));
}

/**
 * Once every wave is healthy and the tags moved: each import follows what it followed. A
 * machine skipped (offline) keeps the revision it ran (`ran`: each tag's before it moved),
 * pinned, for a later apply to gate. Each pin that could not be lifted comes back as a failure.
 */
export async function liftPins(
  run: FragmentRun,
  outcome: RolloutOutcome,
  ran: ReadonlyMap<string, string>,
): Promise<Array<{ address: string; error: FragmentRolloutError }>> {
  const { env, fragmentId, target } = run;
  if (outcome.fragment) outcome.fragment.tags_moved = true;
  // The waves as they ran: with the machines that joined them.
  const machines = outcome.waves
    .flatMap((w) => w.machines)
    .map((m) => ({ address: m.address, name: m.machine, follows: run.follows.get(m.address) ?? '' }));
  const skipped = new Set(
    outcome.waves
      .flatMap((w) => w.machines)
      .filter((m) => m.result === 'skipped')
      .map((m) => m.address),
  );
  const state = await env.backend.read(env.stack);
  const lifted = await mapLimited(machines, env.concurrency, async (m) => {
    const partId = state.resources[m.address]?.ids.part_id;
    const follows = m.follows ?? '';
    if (!partId) return `${m.name}: no part in the state`;
    // Following the latest revision, a skipped machine is pinned already (to the one it ran).
    if (skipped.has(m.address) && follows === '') return undefined;
    const version = skipped.has(m.address) ? ran.get(follows) : follows === '' ? undefined : follows;
    try {
      await pinImport(env.client, partId, fragmentId, version);
      return undefined;
    } catch (err) {
      return `${m.name}: ${errorMessage(err)}`;
    }
  });
  const stuck = lifted.filter((l): l is string => l !== undefined);
  if (outcome.fragment) outcome.fragment.pins_lifted = stuck.length === 0;
  const tags = target.tags.map((t) => t.tag);
  const kept = skipped.size > 0 ? `; ${skipped.size} skipped machine(s) stay pinned to the revision they ran, for a later apply` : '';
  sayFragment(
    run,
    `${tags.length > 0 ? `tag(s) ${tags.join(', ')} moved to revision ${savedRevision(run)}; ` : ''}pins lifted: ${machines.length - skipped.size - stuck.length} machine(s) follow what they followed${kept}`,
  );
  return stuck.map((s) => ({
    address: target.address,
    error: new FragmentRolloutError(`rollout ${run.plan.policy.name}: a pin could not be lifted: ${s}`, {
      path: target.address,
      hint: `set the machine's import of fragment ${target.name} back by hand`,
    }),
  }));
}
