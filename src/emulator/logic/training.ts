/**
 * Training job lifecycle, as pure functions: PENDING -> IN_PROGRESS -> COMPLETED when the
 * emulator's controls advance a job, cancel through CANCELING to CANCELED, and failure
 * from any non-terminal status. Which statuses may be canceled or deleted is the domain's
 * rule (`canCancel`, `canDeleteCompleted`, `isTerminal`).
 */
import { canCancel, isTerminal, trainingStatusName, TrainingStatus } from '../../domain';
import { DatasetType } from '../../api/own-messages';
import type { TrainingJobRecord } from '../store/jobs';
import { containerRunnable } from './training-containers';

/** google.rpc.Code INVALID_ARGUMENT: what a job that cannot start fails with. */
const INVALID_ARGUMENT = 3;

/** A job after a transition, with the log lines the transition writes. */
export interface Transition {
  readonly job: TrainingJobRecord;
  readonly logs: readonly { readonly level: 'info' | 'error'; readonly message: string }[];
}

/** Why a transition cannot happen (answered as FAILED_PRECONDITION). */
export class TransitionError extends Error {}

function statusText(s: TrainingStatus): string {
  return trainingStatusName(s);
}

/**
 * One step along the lifecycle; `newModelId` names the model a completed job produced,
 * `datasetType` is the DatasetType number of the job's dataset (undefined once it is gone).
 * A job on a sequence dataset fails as it starts: training reads binary data.
 */
export function advanceJob(job: TrainingJobRecord, now: number, newModelId: () => string, datasetType?: number): Transition {
  switch (job.status) {
    case TrainingStatus.PENDING:
      if (datasetType === DatasetType.SEQUENCE_DATA) {
        return failJob(job, INVALID_ARGUMENT, `dataset ${job.datasetId} holds sequences; training reads binary data`, now);
      }
      if (job.isCustomJob && !containerRunnable(job.containerVersion)) {
        return failJob(
          job,
          INVALID_ARGUMENT,
          `container version ${JSON.stringify(job.containerVersion)} is not a supported container`,
          now,
        );
      }
      return {
        job: { ...job, status: TrainingStatus.IN_PROGRESS, trainingStarted: now, lastModified: now },
        logs: [{ level: 'info', message: `training started on dataset ${job.datasetId}` }],
      };
    case TrainingStatus.IN_PROGRESS:
      return {
        job: { ...job, status: TrainingStatus.COMPLETED, trainingEnded: now, lastModified: now, syncedModelId: newModelId() },
        logs: [{ level: 'info', message: `training completed: model ${job.modelName} version ${job.modelVersion} is ready` }],
      };
    case TrainingStatus.CANCELING:
      return {
        job: { ...job, status: TrainingStatus.CANCELED, trainingEnded: now, lastModified: now },
        logs: [{ level: 'info', message: 'training canceled' }],
      };
    default:
      throw new TransitionError(`training job ${job.id} is ${statusText(job.status)} and cannot advance`);
  }
}

/** Makes a non-terminal job FAILED with an error status. */
export function failJob(job: TrainingJobRecord, code: number, message: string, now: number): Transition {
  if (isTerminal(job.status)) {
    throw new TransitionError(`training job ${job.id} is ${statusText(job.status)} and cannot fail`);
  }
  return {
    job: { ...job, status: TrainingStatus.FAILED, error: { code, message }, trainingEnded: now, lastModified: now },
    logs: [{ level: 'error', message: `training failed: ${message}` }],
  };
}

/** Starts canceling a job that has not yet completed (PENDING or IN_PROGRESS). */
export function cancelJob(job: TrainingJobRecord, now: number): Transition {
  if (!canCancel(job.status)) {
    throw new TransitionError(`training job ${job.id} is ${statusText(job.status)}; only pending or in-progress jobs can be canceled`);
  }
  return {
    job: { ...job, status: TrainingStatus.CANCELING, lastModified: now },
    logs: [{ level: 'info', message: 'cancellation requested' }],
  };
}
