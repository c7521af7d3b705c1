/**
 * What the service says of a training job as it runs (its status, the model version it
 * trained, why it failed), and the wait for a submitted job to end.
 */
import type { TrainingJob } from '../../api/client';
import { TrainingStatus, canCancel, trainingStatusName } from '../../domain/training';
import type { JsonObject } from '../json';
import type { KindContext } from '../kind';
import { POLL_MS, reportsProgress, type WaitReport } from './machine-models';
import type { JobLogTail } from './training-log-tail';

/** A job that has not stopped yet: pending, training, or winding down after a cancel. */
export function isRunning(status: TrainingStatus): boolean {
  return canCancel(status) || status === TrainingStatus.CANCELING;
}

/** The job's observed attributes: a trained version only once it completed, the error and log lines only when it failed. */
export function jobOutcome(job: TrainingJob, tail: JobLogTail | undefined): JsonObject {
  return {
    status: trainingStatusName(job.status),
    trained_version: job.status === TrainingStatus.COMPLETED ? job.modelVersion : null,
    error_message: job.errorStatus?.message || null,
    log_tail: tail && 'lines' in tail ? [...tail.lines] : null,
  };
}

/**
 * After a submit, when the run waits for training: reads the job until it stops or the
 * wait runs out, saying how it goes. A job that failed is no error here: what deploys its
 * model (a machine) refuses it, and its status says so.
 */
export async function awaitJobEnd(ctx: KindContext, id: string, label: string): Promise<void> {
  const waitMs = ctx.trainingWaitMs ?? 0;
  const started = Date.now();
  let reported: WaitReport | undefined;
  for (;;) {
    const job = await ctx.client.mlTrainingClient.getTrainingJob(id);
    const elapsed = Date.now() - started;
    if (!isRunning(job.status) || elapsed >= waitMs) return;
    const state = `training job ${id} for model ${label} is ${trainingStatusName(job.status)}`;
    if (reportsProgress(reported, state, elapsed)) {
      reported = { state, at: elapsed };
      ctx.progress?.(`${state} (${Math.round(elapsed / 1000)}s of ${Math.round(waitMs / 1000)}s)`);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, waitMs - elapsed)));
  }
}
