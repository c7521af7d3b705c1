/**
 * Data pipelines (viam.app.datapipelines.v1.DataPipelinesService). Stages travel as one
 * BSON document each; this client takes and gives them as JSON objects. Gets and lists are
 * retried on transient errors; the calls that change a pipeline run once.
 */
import { decodeBsonDocument, encodeBsonDocument } from '../../domain/bson';
import type { JsonObject } from '../../domain/json-value';
import {
  DataPipelineRunStatus,
  TabularDataSourceType,
  type DataPipeline as PipelineMessage,
  type DataPipelineRun as RunMessage,
} from '../own-messages';
import type { DataPipelinesServiceType } from '../services';
import type { Invoker } from './call';
import { dateOf, withoutUndefined } from './convert';
import { unlessNotFound } from './errors';
import type { DataPipelineDetail, PipelineRun, PipelineRunStatus, PipelineSource } from './types';

/** What a new pipeline is made of. */
export interface NewDataPipeline {
  readonly organizationId: string;
  readonly name: string;
  readonly stages: readonly JsonObject[];
  readonly schedule: string;
  readonly enableBackfill?: boolean;
  /** Left out: the service's default (the standard store). */
  readonly dataSourceType?: 'standard' | 'hot_storage';
}

/** The data pipelines of an organization, and their runs. */
export interface DataPipelinesClient {
  /** Creates a pipeline (enabled); resolves to its id. */
  createDataPipeline(pipeline: NewDataPipeline): Promise<string>;
  /** The pipeline, or undefined when none has this id. */
  getDataPipeline(id: string): Promise<DataPipelineDetail | undefined>;
  listDataPipelines(organizationId: string): Promise<DataPipelineDetail[]>;
  renameDataPipeline(id: string, name: string): Promise<void>;
  /** Enables or disables its schedule. */
  setDataPipelineEnabled(id: string, enabled: boolean): Promise<void>;
  deleteDataPipeline(id: string): Promise<void>;
  /** Its runs, newest first, at most `pageSize` (the service's page size when left out). */
  listDataPipelineRuns(id: string, pageSize?: number): Promise<PipelineRun[]>;
}

const SOURCES: Readonly<Record<TabularDataSourceType, PipelineSource>> = {
  [TabularDataSourceType.UNSPECIFIED]: 'unspecified',
  [TabularDataSourceType.STANDARD]: 'standard',
  [TabularDataSourceType.HOT_STORAGE]: 'hot_storage',
  [TabularDataSourceType.PIPELINE_SINK]: 'pipeline_sink',
};

const WIRE_SOURCES = { standard: TabularDataSourceType.STANDARD, hot_storage: TabularDataSourceType.HOT_STORAGE } as const;

const STATUSES: Readonly<Record<DataPipelineRunStatus, PipelineRunStatus>> = {
  [DataPipelineRunStatus.UNSPECIFIED]: 'unspecified',
  [DataPipelineRunStatus.SCHEDULED]: 'scheduled',
  [DataPipelineRunStatus.STARTED]: 'started',
  [DataPipelineRunStatus.COMPLETED]: 'completed',
  [DataPipelineRunStatus.FAILED]: 'failed',
};

function pipelineOf(m: PipelineMessage): DataPipelineDetail {
  return withoutUndefined({
    id: m.id,
    organizationId: m.organizationId,
    name: m.name,
    stages: m.mqlBinary.map((bytes, i) => decodeBsonDocument(bytes, `data pipeline ${m.id} stage ${i}`)),
    schedule: m.schedule,
    enabled: m.enabled,
    dataSourceType: m.dataSourceType === undefined ? undefined : (SOURCES[m.dataSourceType] ?? 'unspecified'),
    createdOn: dateOf(m.createdOn),
    updatedAt: dateOf(m.updatedAt),
  });
}

function runOf(m: RunMessage): PipelineRun {
  return withoutUndefined({
    id: m.id,
    status: STATUSES[m.status] ?? 'unspecified',
    startTime: dateOf(m.startTime),
    endTime: dateOf(m.endTime),
    dataStartTime: dateOf(m.dataStartTime),
    dataEndTime: dateOf(m.dataEndTime),
    errorMessage: m.errorMessage || undefined,
  });
}

/** The data pipelines client over `call`. */
export function createDataPipelinesClient(call: Invoker<DataPipelinesServiceType>): DataPipelinesClient {
  return {
    async createDataPipeline(p) {
      const res = await call('createDataPipeline', false, (c, o) =>
        c.createDataPipeline(
          {
            organizationId: p.organizationId,
            name: p.name,
            mqlBinary: p.stages.map((stage, i) => encodeBsonDocument(stage, `query[${i}]`)),
            schedule: p.schedule,
            ...(p.enableBackfill === undefined ? {} : { enableBackfill: p.enableBackfill }),
            ...(p.dataSourceType === undefined ? {} : { dataSourceType: WIRE_SOURCES[p.dataSourceType] }),
          },
          o,
        ),
      );
      return res.id;
    },

    async getDataPipeline(id) {
      const res = await unlessNotFound(() => call('getDataPipeline', true, (c, o) => c.getDataPipeline({ id }, o)));
      return res?.dataPipeline ? pipelineOf(res.dataPipeline) : undefined;
    },

    async listDataPipelines(organizationId) {
      const res = await call('listDataPipelines', true, (c, o) => c.listDataPipelines({ organizationId }, o));
      return res.dataPipelines.map(pipelineOf);
    },

    async renameDataPipeline(id, name) {
      await call('renameDataPipeline', false, (c, o) => c.renameDataPipeline({ id, name }, o));
    },

    async setDataPipelineEnabled(id, enabled) {
      if (enabled) await call('enableDataPipeline', false, (c, o) => c.enableDataPipeline({ id }, o));
      else await call('disableDataPipeline', false, (c, o) => c.disableDataPipeline({ id }, o));
    },

    async deleteDataPipeline(id) {
      await call('deleteDataPipeline', false, (c, o) => c.deleteDataPipeline({ id }, o));
    },

    async listDataPipelineRuns(id, pageSize) {
      const res = await call('listDataPipelineRuns', true, (c, o) => c.listDataPipelineRuns({ id, pageSize: pageSize ?? 0 }, o));
      return res.runs.map(runOf);
    },
  };
}
