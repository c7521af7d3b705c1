/**
 * The ML training client: the service's method names, parameter order and types in
 * their TypeScript forms, results as plain data. Submits, cancels and deletes run once;
 * reads are retried on transient errors.
 */
import type { MLTrainingServiceType } from '../services';
import type { ModelType, TrainingStatus } from '../../domain/training';
import type { TrainingContainer } from '../../domain/training-containers';
import type { Invoker } from './call';
import { containerOf, logEntryOf, trainingJobOf } from './convert';
import { ServiceError } from './errors';
import type { SubmitCustomTrainingJobOptions, SubmitTrainingJobOptions, TrainingJob, TrainingJobLogEntry } from './types';

/** Training jobs of an organization (viam.app.mltraining.v1.MLTrainingService). */
export interface MlTrainingClient {
  /** Submits a managed training job; resolves to the job id. */
  submitTrainingJob(
    organizationId: string,
    datasetId: string,
    modelName: string,
    modelVersion: string,
    modelType: ModelType,
    tags: readonly string[],
    options?: SubmitTrainingJobOptions,
  ): Promise<string>;
  /** Submits a job running the registry training script `registryItemId` at `registryItemVersion`; resolves to the job id. */
  submitCustomTrainingJob(
    organizationId: string,
    datasetId: string,
    registryItemId: string,
    registryItemVersion: string,
    modelName: string,
    modelVersion: string,
    options?: SubmitCustomTrainingJobOptions,
  ): Promise<string>;
  /** The job's metadata; NOT_FOUND for an unknown id. */
  getTrainingJob(id: string): Promise<TrainingJob>;
  /** Jobs of the organization with `status`, or all jobs when it is omitted (or UNSPECIFIED). */
  listTrainingJobs(organizationId: string, status?: TrainingStatus): Promise<TrainingJob[]>;
  /** Cancels a PENDING or IN_PROGRESS job. */
  cancelTrainingJob(id: string): Promise<void>;
  /** Deletes a completed (succeeded, failed or canceled) job. */
  deleteCompletedTrainingJob(id: string): Promise<void>;
  /** Every log entry of the job, all pages. */
  getTrainingJobLogs(id: string): Promise<TrainingJobLogEntry[]>;
  /** The containers a custom training job may name as its container version, by key. */
  listSupportedContainers(): Promise<TrainingContainer[]>;
}

const UNSPECIFIED = 0;

/** The training client over `call`. */
export function createMlTrainingClient(call: Invoker<MLTrainingServiceType>): MlTrainingClient {
  return {
    async submitTrainingJob(organizationId, datasetId, modelName, modelVersion, modelType, tags, options = {}) {
      const res = await call('submitTrainingJob', false, (c, o) =>
        c.submitTrainingJob(
          {
            organizationId,
            datasetId,
            modelName,
            modelVersion,
            modelType,
            modelFramework: options.modelFramework ?? UNSPECIFIED,
            tags: [...tags],
          },
          o,
        ),
      );
      return res.id;
    },

    async submitCustomTrainingJob(organizationId, datasetId, registryItemId, registryItemVersion, modelName, modelVersion, options = {}) {
      const res = await call('submitCustomTrainingJob', false, (c, o) =>
        c.submitCustomTrainingJob(
          {
            organizationId,
            datasetId,
            registryItemId,
            registryItemVersion,
            modelName,
            modelVersion,
            arguments: { ...options.arguments },
            containerVersion: options.containerVersion ?? '',
          },
          o,
        ),
      );
      return res.id;
    },

    async getTrainingJob(id) {
      const res = await call('getTrainingJob', true, (c, o) => c.getTrainingJob({ id }, o));
      if (res.metadata === undefined) {
        throw new ServiceError('UNKNOWN', 'MLTrainingService.GetTrainingJob', `the response for job ${id} has no metadata`);
      }
      return trainingJobOf(res.metadata);
    },

    async listTrainingJobs(organizationId, status) {
      const res = await call('listTrainingJobs', true, (c, o) => c.listTrainingJobs({ organizationId, status: status ?? UNSPECIFIED }, o));
      return res.jobs.map(trainingJobOf);
    },

    async cancelTrainingJob(id) {
      await call('cancelTrainingJob', false, (c, o) => c.cancelTrainingJob({ id }, o));
    },

    async deleteCompletedTrainingJob(id) {
      await call('deleteCompletedTrainingJob', false, (c, o) => c.deleteCompletedTrainingJob({ id }, o));
    },

    async getTrainingJobLogs(id) {
      const entries: TrainingJobLogEntry[] = [];
      const seen = new Set<string>();
      let pageToken: string | undefined;
      for (;;) {
        const res = await call('getTrainingJobLogs', true, (c, o) => c.getTrainingJobLogs({ id, pageToken }, o));
        entries.push(...res.logs.map(logEntryOf));
        if (!res.nextPageToken || seen.has(res.nextPageToken)) return entries;
        seen.add(res.nextPageToken);
        pageToken = res.nextPageToken;
      }
    },

    async listSupportedContainers() {
      const res = await call('listSupportedContainers', true, (c, o) => c.listSupportedContainers({}, o));
      return Object.values(res.containerMap)
        .map(containerOf)
        .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },
  };
}
