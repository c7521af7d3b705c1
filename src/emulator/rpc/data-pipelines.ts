/**
 * `viam.app.datapipelines.v1.DataPipelinesService`: pipelines belong to an organization,
 * their names unique in it; changing one needs owner permission on it. Runs are recorded
 * when the emulator's clock has passed their tick, before anything reads them.
 */
import type { ServiceImpl } from '@connectrpc/connect';
import { decodeBsonDocument } from '../../domain/bson';
import { scheduleProblem } from '../../domain/data-pipelines';
import { errorMessage } from '../../domain/errors';
import { TabularDataSourceType } from '../../api/own-messages';
import type { DataPipelinesServiceType } from '../../api/services';
import { knowsOrganization, type Principal } from '../auth/principal';
import type { Db } from '../db/database';
import { dueRuns } from '../logic/pipeline-runs';
import * as pipelines from '../store/data-pipelines';
import { organizationFor, type Need } from './access';
import { principalOf, timestamp, type Backend } from './context';
import { alreadyExists, invalidArgument, notFound, required } from './errors';

/** Runs a page holds when the request names no page size, and at most. */
const DEFAULT_RUNS_PAGE = 50;
const MAX_RUNS_PAGE = 1000;

function pipelineMessage(p: pipelines.DataPipelineRecord) {
  return {
    id: p.id,
    organizationId: p.organizationId,
    name: p.name,
    mqlBinary: [...p.stages],
    schedule: p.schedule,
    enabled: p.enabled,
    createdOn: timestamp(p.createdOn),
    updatedAt: timestamp(p.updatedAt),
    ...(p.dataSourceType === undefined ? {} : { dataSourceType: p.dataSourceType }),
  };
}

function runMessage(r: pipelines.PipelineRunRecord) {
  return {
    id: r.id,
    startTime: timestamp(r.startTime),
    endTime: timestamp(r.endTime),
    dataStartTime: timestamp(r.dataStartTime),
    dataEndTime: timestamp(r.dataEndTime),
    status: r.status,
    errorMessage: r.errorMessage,
  };
}

/** The pipeline with this id for a caller with `need` on its organization; NotFound when the caller knows nothing of it. */
function pipelineFor(db: Db, p: Principal, id: string, need: Need): pipelines.DataPipelineRecord {
  required(id, 'id');
  const found = pipelines.getPipeline(db, id);
  if (!found || !knowsOrganization(p, found.organizationId)) throw notFound(`data pipeline ${id} not found`);
  organizationFor(db, p, found.organizationId, need);
  return found;
}

/** Records the runs whose tick the clock has passed, in one transaction per pipeline. */
function settleRuns(backend: Backend, id: string): void {
  const { db } = backend;
  const now = backend.now();
  db.transaction(() => {
    const current = pipelines.getPipeline(db, id);
    if (!current) return;
    const due = dueRuns(current, now);
    if (due.length > 0) pipelines.recordRuns(db, id, due, now);
  }).immediate();
}

function checkedStages(stages: readonly Uint8Array[]): Uint8Array[] {
  return stages.map((bytes, i) => {
    try {
      decodeBsonDocument(bytes, `mql_binary[${i}]`);
    } catch (err) {
      throw invalidArgument(`mql_binary[${i}] is not a BSON document: ${errorMessage(err)}`);
    }
    return bytes;
  });
}

/** The source a create may name: standard or hot storage (unspecified reads the standard store). */
function checkedSource(source: TabularDataSourceType | undefined): number | undefined {
  if (source === undefined) return undefined;
  if (
    source === TabularDataSourceType.UNSPECIFIED ||
    source === TabularDataSourceType.STANDARD ||
    source === TabularDataSourceType.HOT_STORAGE
  )
    return source;
  throw invalidArgument(`data_source_type ${source} cannot be a pipeline's source: use standard (1) or hot storage (2)`);
}

function nameFree(db: Db, organizationId: string, name: string, except?: string): void {
  const holder = pipelines.pipelineNamed(db, organizationId, name);
  if (holder && holder.id !== except) throw alreadyExists(`a data pipeline named ${name} already exists in organization ${organizationId}`);
}

export function dataPipelinesService(backend: Backend): Partial<ServiceImpl<DataPipelinesServiceType>> {
  const { db } = backend;
  return {
    createDataPipeline(req, ctx) {
      const org = organizationFor(db, principalOf(ctx), req.organizationId, 'write');
      const name = required(req.name, 'name');
      const problem = scheduleProblem(req.schedule);
      if (problem) throw invalidArgument(`schedule: ${problem.message}`);
      const stages = checkedStages(req.mqlBinary);
      const dataSourceType = checkedSource(req.dataSourceType);
      return db
        .transaction(() => {
          nameFree(db, org.id, name);
          const created = pipelines.insertPipeline(
            db,
            { organizationId: org.id, name, stages, schedule: req.schedule, enableBackfill: req.enableBackfill ?? false, dataSourceType },
            backend.now(),
          );
          return { id: created.id };
        })
        .immediate();
    },

    getDataPipeline(req, ctx) {
      const found = pipelineFor(db, principalOf(ctx), req.id, 'read');
      return { dataPipeline: pipelineMessage(found) };
    },

    listDataPipelines(req, ctx) {
      const org = organizationFor(db, principalOf(ctx), req.organizationId, 'read');
      return { dataPipelines: pipelines.listPipelines(db, org.id).map(pipelineMessage) };
    },

    renameDataPipeline(req, ctx) {
      const found = pipelineFor(db, principalOf(ctx), req.id, 'write');
      const name = required(req.name, 'name');
      db.transaction(() => {
        nameFree(db, found.organizationId, name, found.id);
        if (name !== found.name) pipelines.renamePipeline(db, found.id, name, backend.now());
      }).immediate();
      return {};
    },

    enableDataPipeline(req, ctx) {
      const found = pipelineFor(db, principalOf(ctx), req.id, 'write');
      if (!found.enabled) pipelines.setPipelineEnabled(db, found.id, true, backend.now());
      return {};
    },

    disableDataPipeline(req, ctx) {
      const found = pipelineFor(db, principalOf(ctx), req.id, 'write');
      if (found.enabled) {
        settleRuns(backend, found.id);
        pipelines.setPipelineEnabled(db, found.id, false, backend.now());
      }
      return {};
    },

    deleteDataPipeline(req, ctx) {
      const found = pipelineFor(db, principalOf(ctx), req.id, 'write');
      pipelines.deletePipeline(db, found.id);
      return {};
    },

    /** Newest first; the page token is the offset of the page's first run. */
    listDataPipelineRuns(req, ctx) {
      const found = pipelineFor(db, principalOf(ctx), req.id, 'read');
      settleRuns(backend, found.id);
      const offset = req.pageToken === '' ? 0 : Number(req.pageToken);
      if (!Number.isSafeInteger(offset) || offset < 0)
        throw invalidArgument(`page_token ${JSON.stringify(req.pageToken)} is not one this service gave`);
      const size = req.pageSize === 0 ? DEFAULT_RUNS_PAGE : Math.min(req.pageSize, MAX_RUNS_PAGE);
      const page = pipelines.listRuns(db, found.id, offset, size + 1);
      const more = page.length > size;
      return {
        pipelineId: found.id,
        runs: page.slice(0, size).map(runMessage),
        nextPageToken: more ? String(offset + size) : '',
      };
    },
  };
}
