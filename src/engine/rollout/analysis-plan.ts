/** A rollout plan's analysis lines: what each wave measures once its machines passed their gate. */
import { describeAnalysis, type Analysis } from '../../domain/rollout-analysis';

/** The lines under wave `index` (0-based) of `waves`: each analysis, and when a baseline has no machine left to compare with. */
export function waveAnalysisLines(analyses: readonly Analysis[] | undefined, index: number, waves: number): string[] {
  if (!analyses || analyses.length === 0) return [];
  const last = index === waves - 1;
  return analyses.map(
    (a) =>
      `    then analysis ${describeAnalysis(a)}${a.baseline && last ? ' (the last wave leaves no machine for its baseline: its bounds alone count)' : ''}`,
  );
}
