/**
 * Machines that join a rollout while it runs: a later apply (or a resumed one) finds a
 * machine to roll out that the journal's waves do not hold (created by the stack since, or
 * newly changed). It goes in the wave the rollout goes on at, or in its last wave, as the
 * policy says; the journal records it so `rollout status` shows it.
 */
import { lateJoinerWave } from '../../domain/rollout-pacing';
import type { RolloutPlan, RolloutPolicy, RolloutWaveMachine } from '../../domain/rollout';
import type { ResourceChange } from '../plan-model';
import type { LateJoiner } from '../state/rollout-journal-pacing';
import { ROLLED_OUT_TYPE } from './plan';
import type { MachineOutcome } from './events';

type Waves = RolloutPlan['waves'];

/**
 * The journal's waves with the machines of `planned` they do not hold put in the wave the
 * policy places late joiners in (`current`: the wave the run goes on at), and those joiners.
 */
export function withLateJoiners(
  journaled: Waves,
  planned: Waves,
  policy: RolloutPolicy,
  current: number,
  at: string,
): { waves: Waves; joined: LateJoiner[] } {
  const waves = journaled.map((w) => ({ ...w, machines: [...w.machines] }));
  const known = new Set(waves.flatMap((w) => w.machines.map((m) => m.address)));
  const added: RolloutWaveMachine[] = [];
  for (const m of planned.flatMap((w) => w.machines)) {
    if (known.has(m.address)) continue;
    known.add(m.address);
    added.push(m);
  }
  const number = lateJoinerWave(policy.pacing?.late_joiners, current, waves.length);
  const target = waves[number - 1];
  if (!target || added.length === 0) return { waves, joined: [] };
  target.machines.push(...added);
  return { waves, joined: added.map((m) => ({ address: m.address, name: m.name, wave: number, at })) };
}

/** The rule of the wave a plan adds for machines a running rollout's stack creates. */
export const JOINED_LATE_RULE = 'joined while the rollout runs';

/** Whether the change creates a machine the rollout would stage. */
function createsMachine(change: ResourceChange): boolean {
  return change.type === ROLLED_OUT_TYPE && change.action === 'create';
}

/**
 * A stack rollout's plan with the machines the stack creates while a journal of it runs
 * added as a wave of their own (the run puts them where late joiners go): they are written
 * and gated with the rollout rather than at once, ungated.
 */
export function withCreatedMachines(rollout: RolloutPlan, changes: readonly ResourceChange[], running: boolean): RolloutPlan {
  if (!running) return rollout;
  const staged = new Set(rollout.waves.flatMap((w) => w.machines.map((m) => m.address)));
  const created = changes.filter((c) => createsMachine(c) && !staged.has(c.address));
  if (created.length === 0) return rollout;
  const machines = created.map((c) => ({ address: c.address, name: typeof c.after?.name === 'string' ? c.after.name : c.address }));
  return { ...rollout, waves: [...rollout.waves, { rule: JOINED_LATE_RULE, machines }] };
}

/** A wave of a run: its machines as planned and their outcomes (kept side by side). */
export interface RunWave {
  readonly planned: RolloutWaveMachine[];
  readonly outcomes: MachineOutcome[];
}

/**
 * Places machines found to join while the run is at wave `current` in the wave the policy
 * puts late joiners in, beside its planned machines and outcomes; says where each went.
 */
export function placeJoiners(
  waves: readonly RunWave[],
  found: readonly RolloutWaveMachine[],
  policy: RolloutPolicy,
  current: number,
  at: string,
): LateJoiner[] {
  const number = lateJoinerWave(policy.pacing?.late_joiners, current, waves.length);
  const target = waves[number - 1];
  if (!target) return [];
  const known = new Set(waves.flatMap((w) => w.planned.map((m) => m.address)));
  const joined: LateJoiner[] = [];
  for (const m of found) {
    if (known.has(m.address)) continue;
    known.add(m.address);
    target.planned.push(m);
    target.outcomes.push({ machine: m.name, address: m.address, result: 'not reached' });
    joined.push({ address: m.address, name: m.name, wave: number, at });
  }
  return joined;
}
