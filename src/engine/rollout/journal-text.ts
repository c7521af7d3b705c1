/** A journal's pacing in the words of `rollout status`: what holds it and how to release it, late joiners, wave rates. */
import type { RolloutJournal } from '../state/rollout-journal';
import { releaseHint } from '../state/rollout-journal-pacing';
import { pacingPlanLines, pauseStepText, wavePaceText } from './pacing-text';
import { runSteps } from './pacing';

/** What holds the rollout, and how it goes on. */
export function holdLines(j: RolloutJournal): string[] {
  const fragment = j.plan.fragment !== undefined;
  const lines = pacingPlanLines(j.plan.policy);
  const h = j.hold;
  if (j.status === 'paused' && h) {
    const why =
      h.kind === 'pause-step'
        ? `by a pause step before wave ${h.wave}`
        : `at wave ${h.wave} by its schedule's stop (${j.plan.policy.pacing?.schedule?.stop_by ?? '?'})`;
    lines.push(`  paused ${why} since ${h.since}: ${releaseHint(j.stack, j.plan.policy.name, fragment)}, then apply`);
  }
  if (j.status === 'waiting' && h)
    lines.push(`  waiting for its schedule: wave ${h.wave} starts at ${h.until ?? '?'}; the next apply at or after then goes on`);
  const pauses = runSteps(j.plan.policy, j.plan.waves)
    .map((s, i) => (s.pauseBefore && !(j.released ?? []).includes(i + 1) && i + 1 > j.wave ? i + 1 : 0))
    .filter((n) => n > 0);
  for (const n of pauses) lines.push(`  before wave ${n}: ${pauseStepText(j.stack, j.plan.policy.name, fragment)}`);
  return lines;
}

/** ` (joined late)` after a machine that joined the rollout while it ran. */
export function lateJoinerMark(j: RolloutJournal, address: string): string {
  const joined = j.late_joiners?.find((l) => l.address === address);
  return joined ? ` (joined late, ${joined.at})` : '';
}

/** A wave's pacing after its rule. */
export function wavePacingText(j: RolloutJournal, index: number): string {
  return wavePaceText(runSteps(j.plan.policy, j.plan.waves), index);
}
