/** Training jobs, their log lines, and the models completed jobs produced. */
import type { ModelFramework, ModelType, TrainingStatus } from '../../domain';
import type { Db } from '../db/database';
import { stmt } from './statements';

export interface TrainingJobRecord {
  readonly id: string;
  readonly organizationId: string;
  readonly datasetId: string;
  readonly modelName: string;
  readonly modelVersion: string;
  readonly modelType: ModelType;
  readonly modelFramework: ModelFramework;
  readonly isCustomJob: boolean;
  readonly registryItemId: string;
  readonly registryItemVersion: string;
  readonly status: TrainingStatus;
  readonly error?: { readonly code: number; readonly message: string };
  readonly createdOn: number;
  readonly lastModified: number;
  readonly trainingStarted?: number;
  readonly trainingEnded?: number;
  readonly syncedModelId: string;
  readonly tags: readonly string[];
  readonly arguments: Readonly<Record<string, string>>;
  readonly containerVersion: string;
}

export interface LogEntryRecord {
  readonly seq: number;
  readonly level: string;
  readonly time: number;
  readonly message: string;
}

interface Row {
  id: string;
  organization_id: string;
  dataset_id: string;
  model_name: string;
  model_version: string;
  model_type: number;
  model_framework: number;
  is_custom_job: number;
  registry_item_id: string;
  registry_item_version: string;
  status: number;
  error_code: number | null;
  error_message: string | null;
  created_on: number;
  last_modified: number;
  training_started: number | null;
  training_ended: number | null;
  synced_model_id: string;
  tags: string;
  arguments: string;
  container_version: string;
}

const toJob = (r: Row): TrainingJobRecord => ({
  id: r.id,
  organizationId: r.organization_id,
  datasetId: r.dataset_id,
  modelName: r.model_name,
  modelVersion: r.model_version,
  modelType: r.model_type as ModelType,
  modelFramework: r.model_framework as ModelFramework,
  isCustomJob: r.is_custom_job === 1,
  registryItemId: r.registry_item_id,
  registryItemVersion: r.registry_item_version,
  status: r.status as TrainingStatus,
  ...(r.error_code === null ? {} : { error: { code: r.error_code, message: r.error_message ?? '' } }),
  createdOn: r.created_on,
  lastModified: r.last_modified,
  ...(r.training_started === null ? {} : { trainingStarted: r.training_started }),
  ...(r.training_ended === null ? {} : { trainingEnded: r.training_ended }),
  syncedModelId: r.synced_model_id,
  tags: JSON.parse(r.tags) as string[],
  arguments: JSON.parse(r.arguments) as Record<string, string>,
  containerVersion: r.container_version,
});

function toRow(j: TrainingJobRecord): Row {
  return {
    id: j.id,
    organization_id: j.organizationId,
    dataset_id: j.datasetId,
    model_name: j.modelName,
    model_version: j.modelVersion,
    model_type: j.modelType,
    model_framework: j.modelFramework,
    is_custom_job: j.isCustomJob ? 1 : 0,
    registry_item_id: j.registryItemId,
    registry_item_version: j.registryItemVersion,
    status: j.status,
    error_code: j.error?.code ?? null,
    error_message: j.error?.message ?? null,
    created_on: j.createdOn,
    last_modified: j.lastModified,
    training_started: j.trainingStarted ?? null,
    training_ended: j.trainingEnded ?? null,
    synced_model_id: j.syncedModelId,
    tags: JSON.stringify(j.tags),
    arguments: JSON.stringify(j.arguments),
    container_version: j.containerVersion,
  };
}

const COLUMNS = [
  'id',
  'organization_id',
  'dataset_id',
  'model_name',
  'model_version',
  'model_type',
  'model_framework',
  'is_custom_job',
  'registry_item_id',
  'registry_item_version',
  'status',
  'error_code',
  'error_message',
  'created_on',
  'last_modified',
  'training_started',
  'training_ended',
  'synced_model_id',
  'tags',
  'arguments',
  'container_version',
] as const;

export function insertJob(db: Db, job: TrainingJobRecord): void {
  stmt<[Row]>(db, `INSERT INTO training_jobs (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((c) => `@${c}`).join(', ')})`).run(toRow(job));
}

/** Writes every mutable field of a job. */
export function updateJob(db: Db, job: TrainingJobRecord): void {
  const mutable = COLUMNS.filter((c) => c !== 'id');
  stmt<[Row]>(db, `UPDATE training_jobs SET ${mutable.map((c) => `${c} = @${c}`).join(', ')} WHERE id = @id`).run(toRow(job));
}

export function getJob(db: Db, id: string): TrainingJobRecord | undefined {
  const r = stmt<[string], Row>(db, 'SELECT * FROM training_jobs WHERE id = ?').get(id);
  return r && toJob(r);
}

/** An organization's jobs, newest first; `status` undefined lists every job. */
export function listJobs(db: Db, organizationId: string, status?: TrainingStatus): TrainingJobRecord[] {
  const rows =
    status === undefined
      ? stmt<[string], Row>(db, 'SELECT * FROM training_jobs WHERE organization_id = ? ORDER BY created_on DESC, id DESC').all(
          organizationId,
        )
      : stmt<[string, number], Row>(
          db,
          'SELECT * FROM training_jobs WHERE organization_id = ? AND status = ? ORDER BY created_on DESC, id DESC',
        ).all(organizationId, status);
  return rows.map(toJob);
}

export function deleteJob(db: Db, id: string): void {
  stmt<[string]>(db, 'DELETE FROM training_jobs WHERE id = ?').run(id);
}

/** Whether a job of the organization already uses this version of the model. */
export function jobUsesModelVersion(db: Db, organizationId: string, modelName: string, modelVersion: string): boolean {
  return (
    stmt<[string, string, string], { id: string }>(
      db,
      'SELECT id FROM training_jobs WHERE organization_id = ? AND model_name = ? AND model_version = ?',
    ).get(organizationId, modelName, modelVersion) !== undefined
  );
}

/** Whether a completed job already produced this version of the model (it outlives the job record). */
export function trainedModelExists(db: Db, organizationId: string, modelName: string, modelVersion: string): boolean {
  return (
    stmt<[string, string, string], { job_id: string }>(
      db,
      'SELECT job_id FROM trained_models WHERE organization_id = ? AND model_name = ? AND model_version = ?',
    ).get(organizationId, modelName, modelVersion) !== undefined
  );
}

export function insertTrainedModel(db: Db, job: TrainingJobRecord, now: number): void {
  stmt<[string, string, string, string, string, number, number, number]>(
    db,
    `INSERT OR REPLACE INTO trained_models
       (organization_id, model_name, model_version, synced_model_id, job_id, created_on, model_type, model_framework)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(job.organizationId, job.modelName, job.modelVersion, job.syncedModelId, job.id, now, job.modelType, job.modelFramework);
}

/** A model version a completed job produced. */
export interface TrainedModelRecord {
  readonly organizationId: string;
  readonly modelName: string;
  readonly modelVersion: string;
  readonly syncedModelId: string;
  readonly jobId: string;
  readonly createdOn: number;
  readonly modelType: ModelType;
  readonly modelFramework: ModelFramework;
}

interface TrainedModelRow {
  organization_id: string;
  model_name: string;
  model_version: string;
  synced_model_id: string;
  job_id: string;
  created_on: number;
  model_type: number;
  model_framework: number;
}

/** The names of the models an organization's completed jobs trained. */
export function trainedModelNames(db: Db, organizationId: string): string[] {
  return stmt<[string], { model_name: string }>(
    db,
    'SELECT DISTINCT model_name FROM trained_models WHERE organization_id = ? ORDER BY model_name',
  )
    .all(organizationId)
    .map((r) => r.model_name);
}

/** The versions of an organization's trained model, oldest first. */
export function trainedModelVersions(db: Db, organizationId: string, modelName: string): TrainedModelRecord[] {
  return stmt<[string, string], TrainedModelRow>(
    db,
    'SELECT * FROM trained_models WHERE organization_id = ? AND model_name = ? ORDER BY created_on, model_version',
  )
    .all(organizationId, modelName)
    .map((r) => ({
      organizationId: r.organization_id,
      modelName: r.model_name,
      modelVersion: r.model_version,
      syncedModelId: r.synced_model_id,
      jobId: r.job_id,
      createdOn: r.created_on,
      modelType: r.model_type as ModelType,
      modelFramework: r.model_framework as ModelFramework,
    }));
}

/** Jobs in a status the clock moves (PENDING, IN_PROGRESS, CANCELING) whose last transition was at or before `lastModifiedBy`. */
export function movingJobs(db: Db, lastModifiedBy: number): TrainingJobRecord[] {
  return stmt<[number], Row>(db, 'SELECT * FROM training_jobs WHERE status IN (1, 2, 6) AND last_modified <= ? ORDER BY last_modified, id')
    .all(lastModifiedBy)
    .map(toJob);
}

export function appendLog(db: Db, jobId: string, level: string, time: number, message: string): void {
  const next =
    (stmt<[string], { n: number | null }>(db, 'SELECT MAX(seq) AS n FROM training_job_logs WHERE job_id = ?').get(jobId)?.n ?? 0) + 1;
  stmt<[string, number, string, number, string]>(
    db,
    'INSERT INTO training_job_logs (job_id, seq, level, time, message) VALUES (?, ?, ?, ?, ?)',
  ).run(jobId, next, level, time, message);
}

/** Up to `limit` log entries with a sequence number above `afterSeq`. */
export function readLogs(db: Db, jobId: string, afterSeq: number, limit: number): LogEntryRecord[] {
  return stmt<[string, number, number], LogEntryRecord>(
    db,
    'SELECT seq, level, time, message FROM training_job_logs WHERE job_id = ? AND seq > ? ORDER BY seq LIMIT ?',
  ).all(jobId, afterSeq, limit);
}
