/**
 * A rollout wave's analysis once its gate is passed: the wave's healthy machines measured
 * against the rollout's machines not yet written, each measurement kept in the journal.
 */
import type { Analysis } from '../../domain/rollout-analysis';
import type { AnalysisMachine, AnalysisSignals } from '../health/analysis-signals';
import { analyzeWave } from '../health/wave-analysis';
import type { RolloutEvents, WaveAnalysisReport } from './events';
import type { JournalMeasurement } from '../state/rollout-journal';

/** What the runner hands a wave's analysis: the policy's analyses, the rollout's waves as they stand, and where to journal. */
export interface RunnerAnalysisInput {
  readonly rollout: string;
  readonly wave: number;
  readonly analyses: readonly Analysis[] | undefined;
  readonly waves: readonly {
    readonly machines: readonly { readonly machine: string; readonly address: string; readonly result: string }[];
  }[];
  /** The part of each machine written (its address) and of each one in the state. */
  partOf(address: string): string | undefined;
  readonly signals: () => Promise<AnalysisSignals>;
  readonly events: RolloutEvents;
  readonly concurrency: number;
  readonly journal: { analysis?: JournalMeasurement[] };
  save(): Promise<void>;
}

/**
 * A wave's analysis for the runner, once its gate is passed: undefined when the policy has
 * none; otherwise the report, and why the rollout stops when the analysis did not pass.
 */
export async function runnerWaveAnalysis(
  input: RunnerAnalysisInput,
): Promise<{ readonly report: WaveAnalysisReport; readonly stop?: string } | undefined> {
  if (!input.analyses || input.analyses.length === 0) return undefined;
  const machinesOf = (list: readonly { machine: string; address: string }[]): AnalysisMachine[] =>
    list.flatMap((m) => {
      const partId = input.partOf(m.address);
      return partId ? [{ name: m.machine, partId }] : [];
    });
  const current = input.waves[input.wave - 1]?.machines ?? [];
  const later = input.waves.slice(input.wave).flatMap((w) => w.machines);
  const outcome = await analyzeWave({
    rollout: input.rollout,
    wave: input.wave,
    analyses: input.analyses,
    machines: machinesOf(current.filter((m) => m.result === 'healthy')),
    baseline: machinesOf(later.filter((m) => m.result === 'not reached')),
    signals: await input.signals(),
    events: input.events,
    concurrency: input.concurrency,
    record: async (analysis, m) => {
      const kept: JournalMeasurement = {
        wave: input.wave,
        analysis,
        at: new Date(m.at).toISOString(),
        result: m.result,
        ...(m.value === undefined ? {} : { value: m.value }),
        ...(m.baseline === undefined ? {} : { baseline: m.baseline }),
        machines: m.machines.map((x) => ({ ...x })),
        why: m.why,
      };
      (input.journal.analysis ??= []).push(kept);
      await input.save();
    },
  });
  const report: WaveAnalysisReport = {
    decision: outcome.decision,
    why: outcome.why,
    analyses: outcome.runs.map((r) => ({ name: r.analysis.name, decision: r.decision.decision, measurements: r.measurements })),
  };
  return outcome.decision === 'passed' ? { report } : { report, stop: outcome.why };
}
