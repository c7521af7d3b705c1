/**
 * Where each managed training job is: its status, the model version it makes, since when it
 * trains and, once ended, how long it took or why it failed.
 */
import type { ServiceClient } from '../../api/client';
import { TRAINING_JOB_TYPES } from '../../domain/resource-attributes';
import { trainingStatusName } from '../../domain/training';
import type { State } from '../state/schema';
import { unlessNotFound } from './not-found';

export interface TrainingProgress {
  readonly stack: string;
  readonly address: string;
  readonly jobId: string;
  readonly model: string;
  /** `pending`, `in progress`, `completed`, `failed`, `canceled`, `canceling`, or `gone` when the service no longer has it. */
  readonly status: string;
  readonly trainingStarted?: string;
  readonly trainingEnded?: string;
  /** Seconds spent training so far (or in all, once ended). */
  readonly trainingSeconds?: number;
  readonly error?: string;
}

function statusWord(status: number): string {
  return trainingStatusName(status as Parameters<typeof trainingStatusName>[0])
    .replace(/^TRAINING_STATUS_/, '')
    .toLowerCase()
    .replace(/_/g, ' ');
}

/** The progress of every training job in the given states. */
export async function trainingProgress(
  client: ServiceClient,
  states: readonly State[],
  now: Date = new Date(),
): Promise<TrainingProgress[]> {
  const entries = states.flatMap((state) =>
    Object.entries(state.resources)
      .filter(([, e]) => TRAINING_JOB_TYPES.includes(e.type) && e.ids.id !== undefined)
      .map(([address, e]) => ({ stack: state.stack, address, jobId: e.ids.id as string })),
  );
  return Promise.all(
    entries.map(async (e): Promise<TrainingProgress> => {
      const job = await unlessNotFound(() => client.mlTrainingClient.getTrainingJob(e.jobId));
      if (!job) return { ...e, model: '-', status: 'gone' };
      const started = job.trainingStarted;
      const ended = job.trainingEnded;
      return {
        ...e,
        model: `${job.modelName}@${job.modelVersion}`,
        status: statusWord(job.status),
        ...(started
          ? { trainingStarted: started.toISOString(), trainingSeconds: Math.round(((ended ?? now).getTime() - started.getTime()) / 1000) }
          : {}),
        ...(ended ? { trainingEnded: ended.toISOString() } : {}),
        ...(job.errorStatus?.message ? { error: job.errorStatus.message } : {}),
      };
    }),
  );
}
