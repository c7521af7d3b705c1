/** `viam.app.mltraining.v1.MLTrainingService`: every call needs organization owner permission. */
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
import {
  canDeleteCompleted,
  checkCustomTrainingJobParams,
  checkTrainingJobParams,
  ModelFramework,
  ModelType,
  trainingStatusName,
  TrainingStatus,
} from '../../domain';
import type { MLTrainingServiceType } from '../../api/services';
import type { Principal } from '../auth/principal';
import { cancelJob, TransitionError, type Transition } from '../logic/training';
import { DEFAULT_CONTAINER_VERSION, SUPPORTED_CONTAINERS } from '../logic/training-containers';
import { dueTransitions, shortestPhaseMs } from '../logic/training-schedule';
import { getDataset } from '../store/datasets';
import * as jobs from '../store/jobs';
import { getRegistryItem, registryVersions } from '../store/registry';
import { newId } from '../store/statements';
import { knowsOrganization } from '../auth/principal';
import { principalOf, timestamp, type Backend } from './context';
import { alreadyExists, failedPrecondition, invalidArgument, invalidIssues, notFound, required } from './errors';
import { requireTrainingOwner } from './access';

export { DEFAULT_CONTAINER_VERSION };
/** Log lines per GetTrainingJobLogs page. */
export const LOG_PAGE_SIZE = 100;

/** The wire form of a job (TrainingJobMetadata, every field set that applies to its status). */
export function jobMetadata(j: jobs.TrainingJobRecord) {
  return {
    id: j.id,
    datasetId: j.datasetId,
    organizationId: j.organizationId,
    modelName: j.modelName,
    modelVersion: j.modelVersion,
    modelType: j.modelType,
    modelFramework: j.modelFramework,
    isCustomJob: j.isCustomJob,
    registryItemId: j.registryItemId,
    registryItemVersion: j.registryItemVersion,
    status: j.status,
    errorStatus: j.error ? { code: j.error.code, message: j.error.message, details: [] } : undefined,
    createdOn: timestamp(j.createdOn),
    lastModified: timestamp(j.lastModified),
    trainingStarted: j.trainingStarted === undefined ? undefined : timestamp(j.trainingStarted),
    trainingEnded: j.trainingEnded === undefined ? undefined : timestamp(j.trainingEnded),
    syncedModelId: j.syncedModelId,
    tags: [...j.tags],
    arguments: { ...j.arguments },
    containerVersion: j.containerVersion,
  };
}

/**
 * Writes a transition and its log lines in one transaction. A completed job records the
 * model version it produced, which keeps the version taken after the job is deleted.
 */
export function applyTransition(backend: Backend, t: Transition): jobs.TrainingJobRecord {
  backend.db.transaction(() => writeTransition(backend, t)).immediate();
  return t.job;
}

function writeTransition(backend: Backend, t: Transition): void {
  jobs.updateJob(backend.db, t.job);
  if (t.job.status === TrainingStatus.COMPLETED) jobs.insertTrainedModel(backend.db, t.job, t.job.lastModified);
  for (const line of t.logs) jobs.appendLog(backend.db, t.job.id, line.level, t.job.lastModified, line.message);
}

/**
 * Moves every job whose phase has ended on the emulator's clock, as if it had moved on
 * time. Runs before anything reads jobs or trained models, so what a caller sees is what a
 * service that moves jobs in the background would show; each job is re-read in its own
 * transaction, so processes sharing a data folder never move a job twice.
 */
export function settleTrainingJobs(backend: Backend): void {
  const now = backend.now();
  const duration = backend.trainingDurationMs;
  for (const candidate of jobs.movingJobs(backend.db, now - shortestPhaseMs(duration))) {
    backend.db
      .transaction(() => {
        const job = jobs.getJob(backend.db, candidate.id);
        if (!job) return;
        for (const t of dueTransitions(job, duration, now, newId, datasetTypeOf(backend, job))) writeTransition(backend, t);
      })
      .immediate();
  }
}

/**
 * The job with this id, for a caller who owns its organization. A job of an organization
 * the caller holds no grant in answers NotFound; a non-owner of its organization,
 * PermissionDenied.
 */
export function jobFor(backend: Backend, p: Principal, id: string): jobs.TrainingJobRecord {
  required(id, 'id');
  settleTrainingJobs(backend);
  const job = jobs.getJob(backend.db, id);
  if (!job || !knowsOrganization(p, job.organizationId)) throw notFound(`training job ${id} not found`);
  requireTrainingOwner(p, job.organizationId);
  return job;
}

function checkModelVersionFree(backend: Backend, orgId: string, modelName: string, modelVersion: string): void {
  if (
    jobs.jobUsesModelVersion(backend.db, orgId, modelName, modelVersion) ||
    jobs.trainedModelExists(backend.db, orgId, modelName, modelVersion)
  ) {
    throw alreadyExists(`model ${modelName} already has version ${modelVersion} in organization ${orgId}`);
  }
}

/** The DatasetType number of a job's dataset; undefined once the dataset is gone. */
export function datasetTypeOf(backend: Backend, job: jobs.TrainingJobRecord): number | undefined {
  return getDataset(backend.db, job.datasetId)?.type;
}

function checkDataset(backend: Backend, orgId: string, datasetId: string): void {
  const ds = getDataset(backend.db, datasetId);
  if (!ds || ds.organizationId !== orgId) throw notFound(`dataset ${datasetId} not found in organization ${orgId}`);
}

function submit(backend: Backend, job: jobs.TrainingJobRecord): string {
  settleTrainingJobs(backend);
  backend.db
    .transaction(() => {
      checkModelVersionFree(backend, job.organizationId, job.modelName, job.modelVersion);
      jobs.insertJob(backend.db, job);
      const what = job.isCustomJob ? `custom training job (${job.registryItemId}@${job.registryItemVersion})` : 'training job';
      jobs.appendLog(backend.db, job.id, 'info', job.createdOn, `${what} submitted for model ${job.modelName} version ${job.modelVersion}`);
    })
    .immediate();
  return job.id;
}

function principalOwning(ctx: HandlerContext, orgId: string): Principal {
  const p = principalOf(ctx);
  requireTrainingOwner(p, orgId);
  return p;
}

export function mlTrainingService(backend: Backend): Partial<ServiceImpl<MLTrainingServiceType>> {
  return {
    submitTrainingJob(req, ctx) {
      principalOwning(ctx, req.organizationId);
      const modelType = req.modelType as number as ModelType;
      const modelFramework = req.modelFramework as number as ModelFramework;
      const issues = checkTrainingJobParams({
        datasetId: req.datasetId,
        modelName: req.modelName,
        modelVersion: req.modelVersion,
        modelType,
        modelFramework,
        tags: req.tags,
      }).filter((i) => i.severity === 'error');
      if (issues.length > 0) throw invalidIssues(issues);
      checkDataset(backend, req.organizationId, req.datasetId);
      const now = backend.now();
      const id = submit(backend, {
        id: newId(),
        organizationId: req.organizationId,
        datasetId: req.datasetId,
        modelName: req.modelName,
        modelVersion: req.modelVersion,
        modelType,
        // The official wrappers never send a framework; the built-in trainer produces TFLite then.
        modelFramework: modelFramework === ModelFramework.UNSPECIFIED ? ModelFramework.TFLITE : modelFramework,
        isCustomJob: false,
        registryItemId: '',
        registryItemVersion: '',
        status: TrainingStatus.PENDING,
        createdOn: now,
        lastModified: now,
        syncedModelId: '',
        tags: [...req.tags],
        arguments: {},
        containerVersion: DEFAULT_CONTAINER_VERSION,
      });
      return { id };
    },

    submitCustomTrainingJob(req, ctx) {
      principalOwning(ctx, req.organizationId);
      const issues = checkCustomTrainingJobParams({
        datasetId: req.datasetId,
        registryItemId: req.registryItemId,
        registryItemVersion: req.registryItemVersion,
        modelName: req.modelName,
        modelVersion: req.modelVersion,
        arguments: req.arguments,
        containerVersion: req.containerVersion,
      }).filter((i) => i.severity === 'error');
      if (issues.length > 0) throw invalidIssues(issues);
      checkDataset(backend, req.organizationId, req.datasetId);
      const item = getRegistryItem(backend.db, req.registryItemId);
      if (!item || (item.visibility === 'private' && item.organizationId !== req.organizationId)) {
        throw notFound(`training script ${req.registryItemId} not found in the registry`);
      }
      if (item.type !== 'ml_training') {
        throw invalidArgument(`registry_item_id: registry item ${req.registryItemId} is a ${item.type}, not a training script`);
      }
      if (!registryVersions(backend.db, item.itemId).some((v) => v.version === req.registryItemVersion)) {
        throw notFound(`version ${req.registryItemVersion} of training script ${req.registryItemId} not found`);
      }
      const now = backend.now();
      const id = submit(backend, {
        id: newId(),
        organizationId: req.organizationId,
        datasetId: req.datasetId,
        modelName: req.modelName,
        modelVersion: req.modelVersion,
        modelType: item.modelType,
        modelFramework: item.modelFramework,
        isCustomJob: true,
        registryItemId: item.itemId,
        registryItemVersion: req.registryItemVersion,
        status: TrainingStatus.PENDING,
        createdOn: now,
        lastModified: now,
        syncedModelId: '',
        tags: [],
        arguments: { ...req.arguments },
        containerVersion: req.containerVersion || DEFAULT_CONTAINER_VERSION,
      });
      return { id };
    },

    getTrainingJob(req, ctx) {
      return { metadata: jobMetadata(jobFor(backend, principalOf(ctx), req.id)) };
    },

    listTrainingJobs(req, ctx) {
      principalOwning(ctx, req.organizationId);
      settleTrainingJobs(backend);
      const status = req.status as number as TrainingStatus;
      if (!(Object.values(TrainingStatus) as number[]).includes(status)) {
        throw invalidArgument(`status: unknown training status ${status}`);
      }
      const list = jobs.listJobs(backend.db, req.organizationId, status === TrainingStatus.UNSPECIFIED ? undefined : status);
      return { jobs: list.map(jobMetadata) };
    },

    cancelTrainingJob(req, ctx) {
      const job = jobFor(backend, principalOf(ctx), req.id);
      try {
        applyTransition(backend, cancelJob(job, backend.now()));
      } catch (err) {
        if (err instanceof TransitionError) throw failedPrecondition(err.message);
        throw err;
      }
      return {};
    },

    deleteCompletedTrainingJob(req, ctx) {
      const job = jobFor(backend, principalOf(ctx), req.id);
      if (!canDeleteCompleted(job.status)) {
        throw failedPrecondition(
          `training job ${job.id} is ${trainingStatusName(job.status)}; only completed, failed or canceled jobs can be deleted`,
        );
      }
      jobs.deleteJob(backend.db, job.id);
      return {};
    },

    getTrainingJobLogs(req, ctx) {
      const job = jobFor(backend, principalOf(ctx), req.id);
      const token = req.pageToken ?? '';
      const after = token === '' ? 0 : Number(token);
      if (!Number.isInteger(after) || after < 0) throw invalidArgument(`page_token: invalid page token ${JSON.stringify(token)}`);
      const page = jobs.readLogs(backend.db, job.id, after, LOG_PAGE_SIZE + 1);
      const shown = page.slice(0, LOG_PAGE_SIZE);
      const last = shown[shown.length - 1];
      return {
        logs: shown.map((l) => ({ level: l.level, time: timestamp(l.time), message: l.message })),
        nextPageToken: page.length > LOG_PAGE_SIZE && last ? String(last.seq) : '',
      };
    },

    listSupportedContainers() {
      const containerMap = Object.fromEntries(
        SUPPORTED_CONTAINERS.map((c) => [
          c.key,
          {
            key: c.key,
            uri: c.uri,
            framework: c.framework,
            description: c.description,
            eol: c.eol === undefined ? undefined : timestamp(c.eol.getTime()),
          },
        ]),
      );
      return { containerMap };
    },
  };
}
