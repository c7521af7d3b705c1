/** A rollout's journal as the rollouts page shows it: waves as a timeline, each machine's state, the failure. */
import { abortable, isUnfinished, type RolloutJournal } from '../engine';
import { rolloutJournalKey, type RolloutPolicy } from '../domain/rollout';
import { formatValue } from '../domain/rollout-analysis';
import type { RolloutMachineView, RolloutMeasurementView, RolloutView, RolloutWaveView } from './view';

/** What is known of a machine that failed its gate: why, what failed on it, its log line. */
export interface FailureNote {
  readonly why?: string;
  readonly problems?: ReadonlyArray<{ readonly what: string; readonly error: string }>;
  readonly log?: string;
}

function wavePhase(j: RolloutJournal, number: number): RolloutWaveView['phase'] {
  if (j.status === 'completed' || number < j.wave) return 'done';
  if (number > j.wave) return isUnfinished(j.status) ? 'pending' : 'not reached';
  return isUnfinished(j.status) ? 'current' : 'stopped';
}

/** A wave's rule with the machines it names by address named by their names (`machines fleetform_machine.a` reads `machines a`). */
export function ruleByNames(rule: string, machines: ReadonlyArray<{ readonly address: string; readonly name: string }>): string {
  let out = rule;
  for (const m of [...machines].sort((a, b) => b.address.length - a.address.length)) out = out.split(m.address).join(m.name);
  return out;
}

/** The measurements the journal kept of wave `number`'s analysis, oldest first. */
export function measurementsOf(j: RolloutJournal, number: number): RolloutMeasurementView[] {
  return (j.analysis ?? [])
    .filter((m) => m.wave === number)
    .map((m) => ({
      analysis: m.analysis,
      at: m.at,
      result: m.result,
      value: formatValue(m.value),
      ...(m.baseline === undefined ? {} : { baseline: formatValue(m.baseline) }),
      why: m.why,
    }));
}

/** What the code and state say of a rollout now: whether the code declares it, and the machines that still exist. */
export interface RolloutNow {
  /** Whether the code declares it; undefined when the code is not known. */
  readonly declared?: boolean;
  /** The addresses of the machines its stack's state holds; undefined when not known. */
  readonly existing?: ReadonlySet<string>;
}

/** The stacks' rollouts as the code declares them: a stack's own, then its fragments'. */
export interface DeclaredRollouts {
  readonly name: string;
  readonly rollout?: Pick<RolloutPolicy, 'name' | 'fragment'>;
  readonly fragmentRollouts?: ReadonlyArray<Pick<RolloutPolicy, 'name' | 'fragment'>>;
}

/** Whether the code declares the journal's rollout: a rollout of the same name kept under the same journal key. */
export function declaresRollout(stacks: readonly DeclaredRollouts[], j: Pick<RolloutJournal, 'stack' | 'plan'>): boolean {
  const key = rolloutJournalKey(j.stack, j.plan.policy);
  return stacks
    .filter((s) => s.name === j.stack)
    .some((s) =>
      [...(s.rollout ? [s.rollout] : []), ...(s.fragmentRollouts ?? [])].some(
        (p) => p.name === j.plan.policy.name && rolloutJournalKey(s.name, p) === key,
      ),
    );
}

/**
 * `failures` holds what is known of machines that failed (by address): a machine counts as
 * failed when the journal says so, or when it was rolled back and a failure is known of it.
 * A running rollout whose stack no run holds (`stackLocked` false) was interrupted. A
 * machine its stack's state no longer holds is `gone`, whatever the journal says of it.
 */
export function rolloutView(
  j: RolloutJournal,
  failures: ReadonlyMap<string, FailureNote> = new Map(),
  stackLocked = true,
  now: RolloutNow = {},
): RolloutView {
  const records = new Map(j.machines.map((m) => [m.address, m]));
  const waves = j.plan.waves.map((w, i): RolloutWaveView => {
    const number = i + 1;
    const phase = wavePhase(j, number);
    const machines = w.machines.map((m): RolloutMachineView => {
      const record = records.get(m.address);
      const note = failures.get(m.address);
      const journaled: RolloutMachineView['state'] = record?.result ?? (phase === 'pending' ? 'waiting' : 'not reached');
      const state = now.existing && !now.existing.has(m.address) ? 'gone' : journaled;
      const failed = state === 'failed' || (state === 'rolled back' && note !== undefined);
      return {
        name: m.name,
        address: m.address,
        state,
        failed,
        ...(failed && note?.why ? { why: note.why } : {}),
        ...(failed && note?.problems && note.problems.length > 0 ? { problems: note.problems } : {}),
        ...(failed && note?.log ? { log: note.log } : {}),
      };
    });
    const analysis = measurementsOf(j, number);
    return { number, rule: ruleByNames(w.rule, w.machines), phase, machines, ...(analysis.length > 0 ? { analysis } : {}) };
  });
  const f = j.plan.fragment;
  return {
    key: rolloutJournalKey(j.stack, j.plan.policy),
    stack: j.stack,
    name: j.plan.policy.name,
    status: j.status,
    wave: j.wave,
    startedAt: j.started_at,
    updatedAt: j.updated_at,
    ...(j.reason ? { reason: j.reason } : {}),
    ...(f
      ? {
          fragment: {
            name: f.name,
            ...(f.from_revision ? { fromRevision: f.from_revision } : {}),
            ...(f.to_revision ? { toRevision: f.to_revision } : {}),
          },
        }
      : {}),
    waves,
    abortable: abortable(j),
    resumable: isUnfinished(j.status) && !stackLocked,
    current: now.declared ?? true,
  };
}
