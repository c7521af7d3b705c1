/**
 * The waves a plan shows for a stack's rollout: its machine updates split by the policy's
 * wave rules. Apply runs exactly these waves (a saved plan carries them).
 */
import { describeWave, splitWaves, type RolloutPlan, type RolloutPolicy } from '../../domain/rollout';
import type { DesiredStack } from '../desired/stack';
import { machineDeclaration } from '../kinds/machine';
import type { ResourceChange } from '../plan/model';

/** The resource type whose updates a rollout stages. */
export const ROLLED_OUT_TYPE = machineDeclaration.type;

/** Whether the change is one a rollout stages: a machine updated in place. */
export function isRolledOut(change: ResourceChange): boolean {
  return change.type === ROLLED_OUT_TYPE && change.action === 'update';
}

/** The rollout plan of each stack with a policy and machine updates to stage. */
export function planRollouts(stacks: readonly DesiredStack[], changes: readonly ResourceChange[]): RolloutPlan[] {
  const out: RolloutPlan[] = [];
  for (const stack of stacks) {
    if (!stack.rollout) continue;
    const staged = changes.filter((c) => c.stack === stack.name && isRolledOut(c));
    if (staged.length === 0) continue;
    const declared = new Map(stack.resources.map((r) => [r.address, r]));
    const candidates = staged.map((c) => {
      const locations = [declared.get(c.address)?.attributes.location_id, c.after?.location_id].filter((l): l is string => typeof l === 'string');
      return { address: c.address, locations };
    });
    const names = new Map(staged.map((c) => [c.address, typeof c.after?.name === 'string' ? c.after.name : c.address]));
    const waves = splitWaves(candidates, stack.rollout.waves).map((w) => ({ rule: w.rule, machines: w.machines.map((address) => ({ address, name: names.get(address) ?? address })) }));
    out.push({ stack: stack.name, policy: stack.rollout, waves });
  }
  return out;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

/** The policy's gate, abort and failure rules in one line. */
export function describePolicy(policy: RolloutPolicy): string {
  const { max_failed: n, max_failed_fraction: f } = policy.abort;
  const limits = [n === undefined ? undefined : `more than ${n} failed`, f === undefined ? undefined : `more than ${f * 100}% of written machines failed`].filter(Boolean);
  const abort = limits.length > 0 ? limits.join(' or ') : 'any failed machine';
  return `gate: healthy for ${seconds(policy.gate.settle_ms)} within ${seconds(policy.gate.timeout_ms)}; stops on ${abort}, then ${policy.on_failure === 'rollback' ? 'rolls back' : 'halts'}; offline machines: ${policy.offline}`;
}

/** The plan text of the rollouts: the waves in order with their machines, and the gate. */
export function rolloutPlanLines(rollouts: readonly RolloutPlan[]): string[] {
  const lines: string[] = [];
  for (const r of rollouts) {
    const count = r.waves.reduce((n, w) => n + w.machines.length, 0);
    lines.push(`Rollout ${r.policy.name} (stack ${r.stack}): ${count} machine update(s) in ${r.waves.length} wave(s)`);
    if (r.resumes) lines.push(`  resumes at wave ${r.resumes.wave}: a run started ${r.resumes.startedAt} was interrupted (its waves, machines and baselines are kept)`);
    lines.push(`  ${describePolicy(r.policy)}`);
    r.waves.forEach((w, i) => lines.push(`  wave ${i + 1} (${w.rule}): ${w.machines.map((m) => m.name).join(', ')}`));
    const unmatched = r.policy.waves.filter((w) => !r.waves.some((x) => x.rule === describeWave(w)));
    for (const w of unmatched) lines.push(`  (no changed machine for ${describeWave(w)})`);
    lines.push('');
  }
  return lines;
}
