/**
 * Models a machine deploys from training jobs or uploads (its `deploy_models`): at plan each is an
 * `ml_model` package entry of its config, and while the registry lacks that model version
 * the machine's change waits for the job that makes it. At apply no machine is written
 * with a model version that does not exist: the write waits for the job (up to the run's
 * training wait) or stays pending; a job that failed or was canceled is an error naming it.
 */
import type { TrainingJob } from '../../api/client';
import { FleetformError } from '../../domain/errors';
import { trainingStatusName, TrainingStatus } from '../../domain/training';
import { splitPackageId, type PackageConfig } from '../../domain/packages';
import type { KindContext, PlanNote, PlanProblem } from '../kind';
import { packageVersionPath } from './machine-packages';
import { logTailLines, logTailNote, readJobLogTail } from './training-log-tail';

/** A model version a machine deploys, as `deploy_models` names it. */
export interface DeployedModel {
  /** Local package name on the machine. */
  readonly name: string;
  readonly organizationId: string;
  readonly modelName: string;
  readonly modelVersion: string;
}

/** A deploy whose model version does not exist yet and whose job has not made it in the time allowed. */
export class DeployPendingError extends FleetformError {}
/** A deploy whose training job failed or was canceled: its model version will not exist. */
export class TrainingFailedError extends FleetformError {}

/** `deploy_models` read: `[<organization id>/]<model name>@<model version>` by local name; the run's organization when none is named. */
export function deployedModelsOf(
  attribute: Readonly<Record<string, string>> | undefined,
  organizationId: string,
): { models: DeployedModel[]; problems: PlanProblem[] } {
  const models: DeployedModel[] = [];
  const problems: PlanProblem[] = [];
  for (const [name, text] of Object.entries(attribute ?? {})) {
    // Model names hold no "/" or "@"; a version may.
    const slash = text.indexOf('/');
    const at = text.indexOf('@', slash + 1);
    const modelName = text.slice(slash + 1, at);
    if (at < 0 || at === slash + 1 || at === text.length - 1) {
      problems.push({
        path: `deploy_models.${name}`,
        message: `${JSON.stringify(text)} is not a model version`,
        hint: 'write <model name>@<model version>, e.g. box-detector@3 (Machine.deployModel does)',
      });
      continue;
    }
    models.push({ name, organizationId: slash > 0 ? text.slice(0, slash) : organizationId, modelName, modelVersion: text.slice(at + 1) });
  }
  return { models, problems };
}

/** The package entry that deploys a model. */
export function modelPackageEntry(m: DeployedModel): PackageConfig {
  return { name: m.name, package: `${m.organizationId}/${m.modelName}`, version: m.modelVersion, type: 'ml_model' };
}

/** A config with the deployed models' package entries (replacing written entries of the same name). */
export function withDeployedModels(config: Record<string, unknown>, models: readonly DeployedModel[]): Record<string, unknown> {
  if (models.length === 0) return config;
  const names = new Set(models.map((m) => m.name));
  const written = Array.isArray(config.packages)
    ? config.packages.filter((p: unknown) => !(p !== null && typeof p === 'object' && names.has(String((p as { name?: unknown }).name))))
    : [];
  return { ...config, packages: [...written, ...models.map(modelPackageEntry)] };
}

/** The newest training job of an organization that makes this model version, if any. */
async function jobFor(
  ctx: KindContext,
  organizationId: string,
  modelName: string,
  modelVersion: string,
  fresh: boolean,
): Promise<TrainingJob | undefined> {
  const list = () => ctx.client.mlTrainingClient.listTrainingJobs(organizationId);
  const jobs = fresh ? await list() : await ctx.memo(`training-jobs:${organizationId}`, list);
  return jobs
    .filter((j) => j.modelName === modelName && j.modelVersion === modelVersion)
    .sort((a, b) => (b.createdOn?.getTime() ?? 0) - (a.createdOn?.getTime() ?? 0))[0];
}

function failedJob(job: TrainingJob): boolean {
  return job.status === TrainingStatus.FAILED || job.status === TrainingStatus.CANCELED || job.status === TrainingStatus.CANCELING;
}

function jobFailure(job: TrainingJob, model: string): string {
  const why = job.errorStatus?.message ? `: ${job.errorStatus.message}` : '';
  return `training job ${job.id} for model ${model} is ${trainingStatusName(job.status)}${why}`;
}

/**
 * At plan, for a deployed model the registry lacks: a note that the machine's change waits
 * for its job, or a problem when that job failed or was canceled.
 */
export async function waitingModel(
  ctx: KindContext,
  entry: PackageConfig,
  model: DeployedModel,
): Promise<{ note?: PlanNote; problem?: PlanProblem }> {
  const label = `${model.modelName}@${model.modelVersion}`;
  const job = await jobFor(ctx, model.organizationId, model.modelName, model.modelVersion, false);
  const path = packageVersionPath(entry);
  if (job && failedJob(job)) {
    const tail = await readJobLogTail(ctx, job.id);
    return {
      problem: {
        path,
        message: `${jobFailure(job, label)}; no machine gets a model that does not exist`,
        hint: 'fix the job and train a new model version (a new modelVersion), or deploy a version that exists',
      },
      note: logTailNote(job.id, tail, path),
    };
  }
  const by = job ? `training job ${job.id} (${trainingStatusName(job.status)})` : 'the training job (or upload) this apply makes';
  return {
    note: {
      level: 'warning',
      path,
      message: `waits for ${by}: model ${label} is not in the registry yet; apply writes this machine once it is (apply --wait-for-training DURATION waits for it, else the deploy stays pending until the next apply)`,
    },
  };
}

/** Whether the registry has a package version now (read afresh, not from the plan's reads). */
async function inRegistry(ctx: KindContext, entry: PackageConfig): Promise<boolean> {
  return (await ctx.client.packagesClient.getPackage(entry.package, entry.version ?? 'latest', 'ml_model')) !== undefined;
}

/** How often a wait for a training job reads it again. */
export const POLL_MS = 1000;
/** How often a wait whose job's status is unchanged says it still waits. */
const REPORT_EVERY_MS = 15_000;

/** The last progress line a wait printed: its job status and when. */
export interface WaitReport {
  readonly state: string;
  readonly at: number;
}

/** Whether a wait prints a progress line now: at its first poll, when the job's status changed, else every REPORT_EVERY_MS. */
export function reportsProgress(last: WaitReport | undefined, state: string, at: number, everyMs = REPORT_EVERY_MS): boolean {
  return last === undefined || last.state !== state || at - last.at >= everyMs;
}

/**
 * Before a machine's config is written: every ml_model package it lists exists, waiting for
 * the training job that makes a missing one up to the run's training wait. Throws
 * DeployPendingError when the wait runs out, TrainingFailedError when the job failed.
 */
export async function awaitModels(ctx: KindContext, machine: string, entries: readonly PackageConfig[]): Promise<void> {
  const waitMs = ctx.trainingWaitMs ?? 0;
  const started = Date.now();
  for (const entry of entries) {
    if (entry.type !== 'ml_model' || (await inRegistry(ctx, entry))) continue;
    const id = splitPackageId(entry.package);
    if (!id) continue;
    const label = `${id.name}@${entry.version ?? 'latest'}`;
    let reported: WaitReport | undefined;
    for (;;) {
      const job = await jobFor(ctx, id.organizationId, id.name, entry.version ?? '', true);
      if (!job) {
        throw new DeployPendingError(`machine ${machine}: model ${label} is not in the registry and no training job makes it`, {
          hint: 'the machine was not written; train or upload that model version first',
        });
      }
      if (failedJob(job)) {
        const tail = logTailLines(job.id, await readJobLogTail(ctx, job.id));
        throw new TrainingFailedError(`machine ${machine}: ${jobFailure(job, label)}\n${tail.join('\n')}`, {
          hint: 'the machine was not written; train a new model version, or deploy a version that exists',
        });
      }
      if (await inRegistry(ctx, entry)) break;
      const elapsed = Date.now() - started;
      const state = `training job ${job.id} is ${trainingStatusName(job.status)}`;
      if (elapsed >= waitMs) {
        throw new DeployPendingError(`machine ${machine}: the deploy of model ${label} is pending: ${state}`, {
          hint: 'the machine was not written; apply again once the job completes, or pass --wait-for-training DURATION to wait for it',
        });
      }
      if (reportsProgress(reported, state, elapsed)) {
        reported = { state, at: elapsed };
        ctx.progress?.(
          `machine ${machine} waits for model ${label}: ${state} (${Math.round(elapsed / 1000)}s of ${Math.round(waitMs / 1000)}s)`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, waitMs - elapsed)));
    }
  }
}
