/** Data pipelines of an organization (names unique within it) and the runs each recorded. */
import type { Db } from '../db/database';
import { newId, stmt } from './statements';

export interface DataPipelineRecord {
  readonly id: string;
  readonly organizationId: string;
  readonly name: string;
  /** Each stage's BSON document, as sent. */
  readonly stages: readonly Uint8Array[];
  readonly schedule: string;
  readonly enabled: boolean;
  readonly enableBackfill: boolean;
  /** The wire number sent; undefined when none was. */
  readonly dataSourceType?: number;
  readonly createdOn: number;
  readonly updatedAt: number;
  /** The schedule's ticks up to this instant have a run recorded, or passed while it was disabled. */
  readonly runsThrough: number;
}

export interface PipelineRunRecord {
  readonly id: string;
  readonly pipelineId: string;
  readonly startTime: number;
  readonly endTime: number;
  readonly dataStartTime: number;
  readonly dataEndTime: number;
  /** The wire number of its status. */
  readonly status: number;
  readonly errorMessage: string;
}

interface Row {
  id: string;
  organization_id: string;
  name: string;
  stages: string;
  schedule: string;
  enabled: number;
  enable_backfill: number;
  data_source_type: number | null;
  created_on: number;
  updated_at: number;
  runs_through: number;
}

interface RunRow {
  id: string;
  pipeline_id: string;
  start_time: number;
  end_time: number;
  data_start_time: number;
  data_end_time: number;
  status: number;
  error_message: string;
}

const toPipeline = (r: Row): DataPipelineRecord => ({
  id: r.id,
  organizationId: r.organization_id,
  name: r.name,
  stages: (JSON.parse(r.stages) as string[]).map((b) => new Uint8Array(Buffer.from(b, 'base64'))),
  schedule: r.schedule,
  enabled: r.enabled === 1,
  enableBackfill: r.enable_backfill === 1,
  ...(r.data_source_type === null ? {} : { dataSourceType: r.data_source_type }),
  createdOn: r.created_on,
  updatedAt: r.updated_at,
  runsThrough: r.runs_through,
});

const toRun = (r: RunRow): PipelineRunRecord => ({
  id: r.id,
  pipelineId: r.pipeline_id,
  startTime: r.start_time,
  endTime: r.end_time,
  dataStartTime: r.data_start_time,
  dataEndTime: r.data_end_time,
  status: r.status,
  errorMessage: r.error_message,
});

export type NewPipeline = Pick<DataPipelineRecord, 'organizationId' | 'name' | 'stages' | 'schedule' | 'enableBackfill' | 'dataSourceType'>;

export function insertPipeline(db: Db, p: NewPipeline, now: number): DataPipelineRecord {
  const id = newId();
  stmt(
    db,
    `INSERT INTO data_pipelines (id, organization_id, name, stages, schedule, enabled, enable_backfill, data_source_type, created_on, updated_at, runs_through)
     VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?)`,
  ).run(
    id,
    p.organizationId,
    p.name,
    JSON.stringify(p.stages.map((s) => Buffer.from(s).toString('base64'))),
    p.schedule,
    p.enableBackfill ? 1 : 0,
    p.dataSourceType ?? null,
    now,
    now,
    now,
  );
  return getPipeline(db, id) as DataPipelineRecord;
}

export function getPipeline(db: Db, id: string): DataPipelineRecord | undefined {
  const r = stmt<[string], Row>(db, 'SELECT * FROM data_pipelines WHERE id = ?').get(id);
  return r && toPipeline(r);
}

/** The pipeline of the organization holding this name, if any. */
export function pipelineNamed(db: Db, organizationId: string, name: string): DataPipelineRecord | undefined {
  const r = stmt<[string, string], Row>(db, 'SELECT * FROM data_pipelines WHERE organization_id = ? AND name = ?').get(
    organizationId,
    name,
  );
  return r && toPipeline(r);
}

export function listPipelines(db: Db, organizationId: string): DataPipelineRecord[] {
  return stmt<[string], Row>(db, 'SELECT * FROM data_pipelines WHERE organization_id = ? ORDER BY created_on, id')
    .all(organizationId)
    .map(toPipeline);
}

export function renamePipeline(db: Db, id: string, name: string, now: number): void {
  stmt<[string, number, string]>(db, 'UPDATE data_pipelines SET name = ?, updated_at = ? WHERE id = ?').run(name, now, id);
}

/** Enables or disables it; `runsThrough` moves to `now` so the ticks passed while disabled record no run. */
export function setPipelineEnabled(db: Db, id: string, enabled: boolean, now: number): void {
  stmt<[number, number, number, string]>(db, 'UPDATE data_pipelines SET enabled = ?, updated_at = ?, runs_through = ? WHERE id = ?').run(
    enabled ? 1 : 0,
    now,
    now,
    id,
  );
}

export function deletePipeline(db: Db, id: string): void {
  stmt<[string]>(db, 'DELETE FROM data_pipelines WHERE id = ?').run(id);
}

/** Records runs and moves `runsThrough` to `through`, in the caller's transaction. */
export function recordRuns(
  db: Db,
  pipelineId: string,
  runs: readonly Omit<PipelineRunRecord, 'id' | 'pipelineId'>[],
  through: number,
): void {
  const insert = stmt(
    db,
    `INSERT INTO data_pipeline_runs (id, pipeline_id, start_time, end_time, data_start_time, data_end_time, status, error_message)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const r of runs) insert.run(newId(), pipelineId, r.startTime, r.endTime, r.dataStartTime, r.dataEndTime, r.status, r.errorMessage);
  stmt<[number, string]>(db, 'UPDATE data_pipelines SET runs_through = ? WHERE id = ?').run(through, pipelineId);
}

/** Its runs, newest first, `limit` of them from `offset`. */
export function listRuns(db: Db, pipelineId: string, offset: number, limit: number): PipelineRunRecord[] {
  return stmt<[string, number, number], RunRow>(
    db,
    'SELECT * FROM data_pipeline_runs WHERE pipeline_id = ? ORDER BY start_time DESC, id LIMIT ? OFFSET ?',
  )
    .all(pipelineId, limit, offset)
    .map(toRun);
}
