/**
 * Each promoted model's history, as `fleetform status` and the dashboard's model page show
 * it: the versions decided (promoted or rejected, why, the measurements), which machines are
 * given which version now, and, for a training job that failed, its last log lines.
 */
import type { ServiceClient } from '../../api/client';
import { splitDeployedModel, type PromotionVerdict } from '../../domain/model-promotion';
import { isObject } from '../json';
import type { State } from '../state/schema';
import { logTail } from './training-log-tail';
import type { TrainingProgress } from './training-progress';

export interface ModelMachine {
  readonly machine: string;
  readonly version: string;
}

/** A training job of the model that failed, with the last lines it logged. */
export interface FailedTraining {
  readonly address: string;
  readonly jobId: string;
  readonly model: string;
  readonly error?: string;
  readonly log: readonly string[];
}

export interface ModelHistory {
  readonly stack: string;
  readonly model: string;
  readonly promotion: string;
  readonly versions: readonly PromotionVerdict[];
  /** Each machine deploying the model and the version its config was last written with. */
  readonly machines: readonly ModelMachine[];
  readonly failedTraining: readonly FailedTraining[];
}

/** The config of a machine's state entry: an object, or its JSON text. */
function configOf(attributes: Readonly<Record<string, unknown>> | null): Record<string, unknown> | undefined {
  const config = attributes?.config;
  if (isObject(config)) return config;
  if (typeof config !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(config);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The version of `model` a machine was last written with: its config's package of that
 * model (apply adds it from `deploy_models`), or what its `deploy_models` names.
 */
function writtenVersion(attributes: Readonly<Record<string, unknown>> | null, model: string): string | undefined {
  // State holds a config's lists keyed by entry name; a config as written holds a list.
  const packages = configOf(attributes)?.packages;
  const entries: unknown[] = Array.isArray(packages) ? packages : isObject(packages) ? Object.values(packages) : [];
  for (const p of entries) {
    if (!isObject(p) || typeof p.package !== 'string' || typeof p.version !== 'string') continue;
    if (p.package.slice(p.package.indexOf('/') + 1) === model) return p.version;
  }
  const deployed = attributes?.deploy_models;
  if (!isObject(deployed)) return undefined;
  for (const text of Object.values(deployed)) {
    const split = typeof text === 'string' ? splitDeployedModel(text) : undefined;
    if (split?.model === model) return split.version;
  }
  return undefined;
}

/** The machines of a state that deploy `model`, each with the version written to it. */
function machinesOf(state: State, model: string): ModelMachine[] {
  const out: ModelMachine[] = [];
  for (const [address, entry] of Object.entries(state.resources)) {
    const version = writtenVersion(entry.attributes, model);
    const name = typeof entry.attributes?.name === 'string' ? entry.attributes.name : address;
    if (version !== undefined) out.push({ machine: name, version });
  }
  return out.sort((a, b) => a.machine.localeCompare(b.machine));
}

/** The promoted models of the states, each with its machines (no training jobs read). */
export function modelHistories(states: readonly State[]): ModelHistory[] {
  return states.flatMap((state) =>
    Object.values(state.promotions ?? {}).map((record) => ({
      stack: state.stack,
      model: record.model,
      promotion: record.promotion,
      versions: record.versions,
      machines: machinesOf(state, record.model),
      failedTraining: [],
    })),
  );
}

/** The histories with each failed training job of their model and its last log lines (read from the service). */
export async function withFailedTraining(
  client: ServiceClient,
  histories: readonly ModelHistory[],
  jobs: readonly TrainingProgress[],
): Promise<ModelHistory[]> {
  return Promise.all(
    histories.map(async (h) => {
      const failed = jobs.filter((j) => j.stack === h.stack && j.status === 'failed' && j.model.split('@')[0] === h.model);
      const failedTraining = await Promise.all(
        failed.map(async (j) => ({
          address: j.address,
          jobId: j.jobId,
          model: j.model,
          ...(j.error ? { error: j.error } : {}),
          log: await client.mlTrainingClient
            .getTrainingJobLogs(j.jobId)
            .then(logTail, (err: unknown) => [`the log could not be read: ${String(err)}`]),
        })),
      );
      return { ...h, failedTraining };
    }),
  );
}
