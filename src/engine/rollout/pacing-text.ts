/** A rollout's pacing in the words of a plan and of `rollout status`: wave rates, pause steps, schedule, late joiners. */
import { describeSchedule, describeWaveSteps, type WaveSteps } from '../../domain/rollout-pacing';
import type { RolloutPlan, RolloutPolicy } from '../../domain/rollout';
import { runSteps } from './pacing';

/** The line of a pause step. */
export function pauseStepText(stack: string, rollout: string, fragment: boolean): string {
  return `pause: the rollout stops here until released (\`fleetform rollout resume ${stack}${fragment ? ` --rollout ${rollout}` : ''}\`)`;
}

/** The steps of a planned rollout's waves. */
export function pacingOfPlan(r: Pick<RolloutPlan, 'policy' | 'waves'>): WaveSteps[] {
  return runSteps(r.policy, r.waves);
}

/** ` at most 30/min` after a wave's rule, or nothing for a wave written at once (a ramp's rate as if each wave before passed). */
export function wavePaceText(steps: readonly WaveSteps[], index: number): string {
  const s = steps[index];
  const text = s ? describeWaveSteps(s, { wavesPassed: index, written: 0 }) : '';
  return text ? `, ${text}` : '';
}

/** The policy's schedule and late-joiner lines. */
export function pacingPlanLines(policy: RolloutPolicy): string[] {
  const p = policy.pacing;
  const lines: string[] = [];
  if (p?.schedule) lines.push(`  schedule: ${describeSchedule(p.schedule)}`);
  if (p?.late_joiners === 'last-wave') lines.push('  machines joining while it runs go in its last wave');
  return lines;
}
