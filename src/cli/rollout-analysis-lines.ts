/** The analysis measurements of a rollout's journal, one line each, under the wave they were taken in. */
import { formatValue } from '../domain/rollout-analysis';
import type { RolloutJournal } from '../engine';

export function measurementLines(j: RolloutJournal, wave: number): string[] {
  return (j.analysis ?? [])
    .filter((m) => m.wave === wave)
    .map((m) => {
      const baseline = m.baseline === undefined ? '' : ` (baseline ${formatValue(m.baseline)})`;
      return `    wave ${wave} analysis ${m.analysis}: ${m.result.toUpperCase()} ${formatValue(m.value)}${baseline} at ${m.at}: ${m.why}`;
    });
}
