/**
 * A schedule says which writes an apply makes, in which waves, behind which gate. A plain
 * apply is one wave with no gate; a stack's rollout writes its other changes first, then its
 * machine updates wave by wave behind the rollout's health gate; a fragment's rollout saves
 * the fragment's new revision first, pins the machines importing it to that revision wave by
 * wave behind the gate, then moves the tags following it. The builders here are pure: the
 * plan, the rollout declaration and any interrupted run's journal in, the schedule out.
 */
import { rolloutJournalKey, type RolloutPlan, type RolloutWaveMachine } from '../../domain/rollout';
import type { DesiredStack } from '../desired/stack';
import type { ResourceChange } from '../plan-model';
import type { RolloutJournal } from '../state/rollout-journal';
import { isFragmentPinChange } from '../rollout/plan';
import { withCreatedMachines } from '../rollout/late-joiners';

/** What the waves of a schedule wait for. */
export type Gate =
  /** Nothing: a plain apply's one wave is written at once. */
  | { readonly kind: 'none' }
  /** Each wave's machines pass the rollout's health gate before the next wave starts; its journal lets a killed apply go on. */
  | { readonly kind: 'health'; readonly rollout: RolloutPlan; readonly journalKey: string; readonly resume: RolloutJournal | undefined };

/** How a gated wave changes its machines. */
export type WaveWrite =
  /** Their planned configs are written through the executor. */
  | { readonly kind: 'config' }
  /** Their imports of the fragment are pinned to its new revision; `savesRevision` is false when that revision is saved already (by an interrupted run, or one that stopped). */
  | { readonly kind: 'fragment-pin'; readonly savesRevision: boolean };

/** One gated wave: its rule, its machines, and the planned changes it writes (none for a pin). */
export interface ScheduledWave {
  readonly rule: string;
  readonly machines: readonly RolloutWaveMachine[];
  readonly writes: readonly ResourceChange[];
}

export type ScheduleKind = 'apply' | 'stack-rollout' | 'fragment-rollout';

export interface Schedule {
  readonly kind: ScheduleKind;
  readonly stack: string;
  /** Written at once, before any gated wave: a plain apply's one wave, a stack rollout's other changes, a fragment's new revision. */
  readonly lead: readonly ResourceChange[];
  /** The gated waves in order (none for a plain apply). */
  readonly waves: readonly ScheduledWave[];
  /** How a gated wave writes its machines. */
  readonly write: WaveWrite;
  readonly gate: Gate;
  /** Written at once once every wave passed: a fragment rollout's tags. */
  readonly trail: readonly ResourceChange[];
  /** Runs only when the schedules before it in the apply failed nothing (a fragment's waves wait for a stack whose other changes went through). */
  readonly afterCleanRun: boolean;
}

/** A plain apply: every change in one wave, no gate. */
export function plainSchedule(stack: string, changes: readonly ResourceChange[]): Schedule {
  return {
    kind: 'apply',
    stack,
    lead: [...changes],
    waves: [],
    write: { kind: 'config' },
    gate: { kind: 'none' },
    trail: [],
    afterCleanRun: false,
  };
}

function byWave(rollout: RolloutPlan, changes: readonly ResourceChange[]): ScheduledWave[] {
  const at = new Map(changes.map((c) => [c.address, c]));
  return rollout.waves.map((w) => ({ rule: w.rule, machines: w.machines, writes: w.machines.flatMap((m) => at.get(m.address) ?? []) }));
}

/**
 * A stack's rollout: the changes outside its waves first, at once; then each wave's machine
 * updates behind the gate. An interrupted run (`resume`) goes on with its own waves when the
 * plan has none.
 */
export function stackRolloutSchedule(
  stack: string,
  changes: readonly ResourceChange[],
  planned: RolloutPlan | undefined,
  resume: RolloutJournal | undefined,
): Schedule {
  const base = planned ?? resume?.plan;
  if (!base) return plainSchedule(stack, changes);
  // Machines the stack creates while the rollout runs join it (see late-joiners).
  const rollout = withCreatedMachines(base, changes, resume !== undefined);
  const staged = new Set(rollout.waves.flatMap((w) => w.machines.map((m) => m.address)));
  return {
    kind: 'stack-rollout',
    stack,
    lead: changes.filter((c) => !staged.has(c.address)),
    waves: byWave(rollout, changes),
    write: { kind: 'config' },
    gate: { kind: 'health', rollout, journalKey: rolloutJournalKey(stack, rollout.policy), resume },
    trail: [],
    afterCleanRun: false,
  };
}

/** The addresses a fragment's rollout writes itself: the fragment and the tags following it. */
export function fragmentRolloutAddresses(rollout: RolloutPlan): string[] {
  return rollout.fragment ? [rollout.fragment.address, ...rollout.fragment.tags.map((t) => t.address)] : [];
}

/**
 * A fragment's rollout: the fragment's change first (its new revision, unless one saved
 * before is what rolls out), then each wave's machines pinned to it behind the gate, then its tags.
 * `changes` are the stack's; the rollout takes from them what it writes.
 */
export function fragmentRolloutSchedule(
  stack: string,
  changes: readonly ResourceChange[],
  planned: RolloutPlan,
  resume: RolloutJournal | undefined,
): Schedule {
  const rollout: RolloutPlan = resume ? { ...resume.plan, ...(planned.resumes ? { resumes: planned.resumes } : {}) } : planned;
  const target = rollout.fragment;
  const at = new Map(changes.map((c) => [c.address, c]));
  // The revision to roll out is known when an interrupted run saved it, or when the plan rolls out one saved before.
  const savesRevision = target?.to_revision === undefined;
  const fragmentChange = target && savesRevision ? at.get(target.address) : undefined;
  return {
    kind: 'fragment-rollout',
    stack,
    lead: fragmentChange ? [fragmentChange] : [],
    waves: rollout.waves.map((w) => ({ rule: w.rule, machines: w.machines, writes: [] })),
    write: { kind: 'fragment-pin', savesRevision },
    gate: { kind: 'health', rollout, journalKey: rolloutJournalKey(stack, rollout.policy), resume },
    trail: (target?.tags ?? []).flatMap((t) => at.get(t.address) ?? []),
    afterCleanRun: true,
  };
}

/** The journals of a stack's rollouts left running by an interrupted apply, by journal key. */
export type RunningJournals = ReadonlyMap<string, RolloutJournal>;

/** The journal keys of a stack's rollouts: its own, then each fragment rollout's. */
export function rolloutJournalKeys(stack: DesiredStack): string[] {
  return [stack.name, ...(stack.fragmentRollouts ?? []).map((p) => rolloutJournalKey(stack.name, p))];
}

/** Whether the stack's change is one a fragment rollout of `fragments` writes itself (its fragment, its tags, its machines' pins). */
function ownedByFragmentRollouts(fragments: readonly RolloutPlan[]): (change: ResourceChange) => boolean {
  const machines = new Set(fragments.flatMap((r) => r.waves.flatMap((w) => w.machines.map((m) => m.address))));
  const staged = new Set(fragments.flatMap(fragmentRolloutAddresses));
  return (c) => staged.has(c.address) || (machines.has(c.address) && isFragmentPinChange(c));
}

/**
 * The schedules of one stack's apply, in the order they run: the stack's own changes (a
 * plain apply, or its rollout's; none when nothing is left to do), then each fragment
 * rollout, planned or interrupted. `changes` are the stack's planned changes (no no-ops).
 */
export function stackSchedules(
  stack: DesiredStack,
  changes: readonly ResourceChange[],
  planned: readonly RolloutPlan[],
  running: RunningJournals,
): Schedule[] {
  const fragments = (stack.fragmentRollouts ?? []).flatMap((policy) => {
    const resume = running.get(rolloutJournalKey(stack.name, policy));
    const rollout = planned.find((r) => r.stack === stack.name && r.fragment && r.policy.name === policy.name) ?? resume?.plan;
    return rollout ? [{ rollout, resume }] : [];
  });
  const owned = ownedByFragmentRollouts(fragments.map((f) => f.rollout));
  const own = changes.filter((c) => !owned(c));
  const resume = running.get(stack.name);
  const first =
    own.length > 0 || resume
      ? [
          stackRolloutSchedule(
            stack.name,
            own,
            planned.find((r) => r.stack === stack.name && !r.fragment),
            resume,
          ),
        ]
      : [];
  return [...first, ...fragments.map((f) => fragmentRolloutSchedule(stack.name, changes, f.rollout, f.resume))];
}

/** Every change the schedule writes: its lead, its waves', its trail. */
export function scheduledWrites(schedule: Schedule): ResourceChange[] {
  return [...schedule.lead, ...schedule.waves.flatMap((w) => w.writes), ...schedule.trail];
}

/** What a schedule that waits for a clean run leaves unwritten when it does not run: a fragment rollout's fragment and tags. */
export function waitingAddresses(schedule: Schedule): string[] {
  if (schedule.kind === 'fragment-rollout' && schedule.gate.kind === 'health') return fragmentRolloutAddresses(schedule.gate.rollout);
  return scheduledWrites(schedule).map((c) => c.address);
}
