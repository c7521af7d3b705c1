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

/** What a wave's analysis tells as it goes: it starts, each measurement as it comes, each analysis's end. */
export type AnalysisEvent =
  | { readonly type: 'analyzing'; readonly rollout: string; readonly wave: number; readonly analyses: readonly string[] }
  | {
      readonly type: 'measurement';
      readonly rollout: string;
      readonly wave: number;
      readonly analysis: string;
      readonly measurement: Measurement;
    }
  | {
      readonly type: 'analysis';
      readonly rollout: string;
      readonly wave: number;
      readonly analysis: string;
      readonly decision: 'passed' | 'failed' | 'inconclusive';
      readonly why: string;
    };

export interface WaveAnalysisInput {
  readonly rollout: string;
  readonly wave: number;
  readonly analyses: readonly Analysis[];
  /** The wave's machines that passed their gate. */
  readonly machines: readonly AnalysisMachine[];
  /** The rollout's machines not yet written: the baseline. */
  readonly baseline: readonly AnalysisMachine[];
  readonly signals: AnalysisSignals;
  readonly events: (event: AnalysisEvent) => void;
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
