/**
 * Runs a wave's analyses once its machines passed their gate: each analysis measures every
 * `interval` over the interval before, on the wave's healthy machines (and, for a
 * baseline, on the rollout's machines not yet written), until its decision is made. The
 * first analysis that fails or ends inconclusive ends the wave's analysis: the rollout
 * stops as it does on a failed gate.
 */
import {
  decideAnalysis,
  measure,
  type Analysis,
  type AnalysisDecision,
  type MachineSample,
  type Measurement,
} from '../../domain/rollout-analysis';
import { mapLimited } from '../map-limited';
import type { AnalysisMachine, AnalysisSignals } from './analysis-signals';
import type { RolloutEvents, WaveAnalysisReport } from './events';
import type { JournalMeasurement } from './journal';

export interface WaveAnalysisInput {
  readonly rollout: string;
  readonly wave: number;
  readonly analyses: readonly Analysis[];
  /** The wave's machines that passed their gate. */
  readonly machines: readonly AnalysisMachine[];
  /** The rollout's machines not yet written: the baseline. */
  readonly baseline: readonly AnalysisMachine[];
  readonly signals: AnalysisSignals;
  readonly events: RolloutEvents;
  /** The most machines read at once. */
  readonly concurrency: number;
  /** Keeps a measurement as it comes (the rollout's journal). */
  record(analysis: string, measurement: Measurement): Promise<void>;
}

/** One analysis of a wave: its measurements so far and where it stands. */
export interface AnalysisRun {
  readonly analysis: Analysis;
  readonly measurements: Measurement[];
  next: number;
  decision: AnalysisDecision;
}

export interface WaveAnalysisOutcome {
  readonly decision: 'passed' | 'failed' | 'inconclusive';
  readonly why: string;
  readonly runs: readonly AnalysisRun[];
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function samples(input: WaveAnalysisInput, a: Analysis, machines: readonly AnalysisMachine[], end: number): Promise<MachineSample[]> {
  const window = { start: end - a.interval_ms, end };
  const out = new Map<string, MachineSample>();
  await mapLimited(machines, input.concurrency, async (m) => {
    out.set(m.name, await input.signals.sample(a.metric, m, window));
  });
  return machines.map((m) => out.get(m.name) as MachineSample);
}

async function measureOnce(input: WaveAnalysisInput, run: AnalysisRun, at: number): Promise<void> {
  const a = run.analysis;
  const [wave, baseline] = await Promise.all([
    samples(input, a, input.machines, at),
    a.baseline !== undefined && input.baseline.length > 0 ? samples(input, a, input.baseline, at) : Promise.resolve(undefined),
  ]);
  const m = measure(a, at, wave, baseline);
  run.measurements.push(m);
  await input.record(a.name, m);
  input.events({ type: 'measurement', rollout: input.rollout, wave: input.wave, analysis: a.name, measurement: m });
  run.decision = decideAnalysis(a, run.measurements);
  run.next += a.interval_ms;
  if (run.decision.decision !== 'continue')
    input.events({
      type: 'analysis',
      rollout: input.rollout,
      wave: input.wave,
      analysis: a.name,
      decision: run.decision.decision,
      why: run.decision.why,
    });
}

export async function analyzeWave(input: WaveAnalysisInput): Promise<WaveAnalysisOutcome> {
  const started = Date.now();
  const runs: AnalysisRun[] = input.analyses.map((analysis) => ({
    analysis,
    measurements: [],
    next: started + analysis.interval_ms,
    decision: { decision: 'continue' },
  }));
  input.events({ type: 'analyzing', rollout: input.rollout, wave: input.wave, analyses: input.analyses.map((a) => a.name) });
  for (;;) {
    const open = runs.filter((r) => r.decision.decision === 'continue');
    const ended = runs.find((r) => r.decision.decision === 'failed' || r.decision.decision === 'inconclusive');
    if (ended && ended.decision.decision !== 'continue' && ended.decision.decision !== 'passed')
      return { decision: ended.decision.decision, why: ended.decision.why, runs };
    if (open.length === 0) return { decision: 'passed', why: `${runs.length} analysis(es) passed`, runs };
    await sleep(Math.max(0, Math.min(...open.map((r) => r.next)) - Date.now()));
    const now = Date.now();
    await Promise.all(open.filter((r) => r.next <= now).map((r) => measureOnce(input, r, now)));
  }
}

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
