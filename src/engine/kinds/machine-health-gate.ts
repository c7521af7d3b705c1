/**
 * A machine's `health_gate` and `health_analysis`: read from its attributes, and waited on
 * after a config write: first the machine's health, then its analyses (bounds only).
 */
import { parseHealthAnalysis } from '../../domain/health-analysis';
import { parseHealthGate } from '../../domain/rollout';
import { formatValue, type Analysis } from '../../domain/rollout-analysis';
import { serviceStatusSource } from '../health/service-status-source';
import { HealthGateError, waitHealthy } from '../health/wait-healthy';
import { serviceSignals } from '../health/analysis-signals';
import { analyzeWave } from '../health/wave-analysis';
import { isObject, type JsonObject } from '../json';
import type { KindContext, PlanProblem } from '../kind';

/** The gate of a `health_gate` map, with a plan problem per bad key. */
export function gateOf(raw: Readonly<Record<string, string>>): { problems: PlanProblem[] } {
  const { problems } = parseHealthGate(raw);
  return {
    problems: problems.map((p) => ({
      path: `health_gate.${p.key}`,
      message: p.message,
      hint: 'give timeout and settle as durations, e.g. { timeout = "10m", settle = "30s" }',
    })),
  };
}

/** The analyses of a `health_analysis` map, with a plan problem per bad key. */
export function analysisOf(raw: Readonly<Record<string, Readonly<Record<string, string>>>>): {
  analyses: Analysis[];
  problems: PlanProblem[];
} {
  const { analyses, problems } = parseHealthAnalysis(raw);
  return {
    analyses,
    problems: problems.map((p) => ({
      path: `health_analysis.${p.key}`,
      message: p.message,
      hint: 'write each analysis like errors = { metric = "log_rate", level = "error", max = "5", interval = "20s" }',
    })),
  };
}

function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (isObject(value)) for (const [k, v] of Object.entries(value)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** The most machines' signals read at once: a machine's own analysis reads one. */
const ONE_MACHINE = 1;

/**
 * Waits for the machine's health when its view has a gate or analyses (analyses alone wait
 * with the default gate), then runs its analyses on it; a machine with neither returns at once.
 */
export async function passHealthGate(ctx: KindContext, view: JsonObject, partId: string): Promise<void> {
  const hasAnalysis = isObject(view.health_analysis) && Object.keys(view.health_analysis).length > 0;
  if (!isObject(view.health_gate) && !hasAnalysis) return;
  const { gate } = parseHealthGate(stringMap(view.health_gate));
  if (!gate) return;
  const source = await ctx.memo('machine-status-source', () => serviceStatusSource(ctx.client));
  const machine = String(view.name);
  await waitHealthy(source, partId, machine, gate);
  if (!hasAnalysis) return;
  const raw: Record<string, Record<string, string>> = {};
  for (const [name, entry] of Object.entries(view.health_analysis as JsonObject)) raw[name] = stringMap(entry);
  const { analyses } = analysisOf(raw);
  const outcome = await analyzeWave({
    rollout: machine,
    wave: 1,
    analyses,
    machines: [{ name: machine, partId }],
    baseline: [],
    signals: await ctx.memo('analysis-signals', () => serviceSignals(ctx.client, source)),
    events: (e) => {
      if (e.type === 'measurement')
        ctx.progress?.(
          `machine ${machine}: analysis ${e.analysis} measured ${formatValue(e.measurement.value)}: ${e.measurement.result.toUpperCase()}: ${e.measurement.why}`,
        );
    },
    concurrency: ONE_MACHINE,
    record: () => Promise.resolve(),
  });
  if (outcome.decision !== 'passed')
    throw new HealthGateError(`machine ${machine} did not pass its health analysis: ${outcome.why}`, {
      path: 'health_analysis',
      hint: 'see the measurements above; fix the change (or the module) and apply again, or loosen the analysis',
    });
}
