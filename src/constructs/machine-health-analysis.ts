/** A machine's health gate analyses: a Rollout's analysis entries, with bounds only, as the `health_analysis` attribute holds them. */
import { FleetformError } from '../domain/errors';
import { healthAnalysisAttribute, type HealthAnalysisAttribute } from '../domain/health-analysis';
import { analysisPolicy, type AnalysisProps } from './metric';

export function machineHealthAnalysis(props: readonly AnalysisProps[], path: string): HealthAnalysisAttribute {
  const field = 'Machine: healthGate.analysis';
  props.forEach((p, i) => {
    if (p.baseline !== undefined)
      throw new FleetformError(`${field}[${i}].baseline: a machine's health gate has no baseline`, {
        path,
        hint: "a baseline compares with the machines a rollout has not written yet: give min or max here, or move the analysis to a Rollout's analysis",
      });
  });
  return healthAnalysisAttribute(analysisPolicy(props, { path, field }));
}
