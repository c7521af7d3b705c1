import type { DataPipelineDetail, PipelineRun } from '../../api/client/types';
import { readStageText, scheduleProblem, type DataSourceType } from '../../domain/data-pipelines';
import { FleetformError } from '../../domain/errors';
import { dataPipelineResource } from '../../domain/resource-attributes';
import type { JsonObject } from '../../domain/json-value';
import { isUnknown } from '../json';
import type { Applied, DesiredValue, Judgement, Observation, ResourceKind } from '../kind';
import { defineKind, type ViewOf } from '../kind-declaration';
import type { PlanProblem } from '../plan-notes';
import { unlessNotFound } from './not-found';

export const dataPipelineDeclaration = defineKind(dataPipelineResource);

type DataPipelineView = ViewOf<typeof dataPipelineDeclaration>;

/** A stage as the view holds it: its JSON text without spacing, keys in their order. */
const stageText = (stage: JsonObject): string => JSON.stringify(stage);

/** The stages of a view as objects (a view's stages are known and read by then). */
function stagesOf(view: DataPipelineView): JsonObject[] {
  return view.query.map((text, i) => {
    const read = readStageText(text, i);
    if ('problem' in read) throw new FleetformError(read.problem.message, { path: read.problem.path, hint: read.problem.hint });
    return read.stage;
  });
}

/** The query as the view holds it, with the problems of its stages (a stage not known yet is kept as it is). */
function desiredQuery(query: readonly string[]): { query: string[]; problems: PlanProblem[] } {
  const problems: PlanProblem[] = [];
  const out = query.map((text, i) => {
    if (isUnknown(text)) return text;
    const read = readStageText(text, i);
    if ('problem' in read) {
      problems.push(read.problem);
      return text;
    }
    return stageText(read.stage);
  });
  return { query: out, problems };
}

/** The source the service reports: none or unspecified reads the standard store. */
const sourceOf = (p: DataPipelineDetail): DataSourceType => (p.dataSourceType === 'hot_storage' ? 'hot_storage' : 'standard');

/** What an update must notice changed on the service since the plan. */
const versionOf = (p: DataPipelineDetail): string => [p.name, String(p.enabled), p.schedule, ...p.stages.map(stageText)].join('\u0000');

function runFact(run: PipelineRun | undefined): Record<string, string> {
  if (!run) return { last_run: 'none yet' };
  const window =
    run.dataStartTime && run.dataEndTime ? ` (data ${run.dataStartTime.toISOString()} to ${run.dataEndTime.toISOString()})` : '';
  return { last_run: `${run.status}${window}${run.errorMessage ? `: ${run.errorMessage}` : ''}` };
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * A data pipeline of an organization. The service changes no query, schedule, source or
 * backfill in place (those replace it); a name and whether it is enabled change in place.
 */
export const dataPipelineKind: ResourceKind<typeof dataPipelineDeclaration> = {
  type: dataPipelineDeclaration.type,
  declaration: dataPipelineDeclaration,
  // Names are unique in an organization: the old pipeline goes before the new one takes its name.
  replaceOrder: 'delete-first',

  async desire(ctx, a): Promise<DesiredValue<DataPipelineView>> {
    const { query, problems } = desiredQuery(a.query);
    const schedule = isUnknown(a.schedule) ? undefined : scheduleProblem(a.schedule);
    return {
      view: {
        name: a.name,
        query,
        schedule: a.schedule,
        data_source_type: a.data_source_type ?? 'standard',
        enable_backfill: a.enable_backfill ?? false,
        enabled: a.enabled ?? true,
        organization_id: a.organization_id || ctx.organizationId,
      },
      private: {},
      notes: [],
      problems: schedule ? [...problems, schedule] : problems,
    };
  },

  async observe(ctx, entry): Promise<Observation<DataPipelineView> | undefined> {
    const id = entry.ids.id;
    const pipeline = id ? await unlessNotFound(() => ctx.client.dataPipelinesClient.getDataPipeline(id)) : undefined;
    if (!id || !pipeline) return undefined;
    const [last] = await ctx.client.dataPipelinesClient.listDataPipelineRuns(id, 1);
    return {
      view: {
        name: pipeline.name,
        query: pipeline.stages.map(stageText),
        schedule: pipeline.schedule,
        data_source_type: sourceOf(pipeline),
        // The service does not report it: what the last apply sent stands.
        enable_backfill: entry.attributes?.enable_backfill === true,
        enabled: pipeline.enabled,
        organization_id: pipeline.organizationId,
      },
      version: versionOf(pipeline),
      facts: runFact(last),
    };
  },

  judge({ replaceReasons }): Judgement {
    return {
      problems: [],
      notes:
        replaceReasons.length > 0
          ? [
              {
                level: 'warning',
                message: `the service changes no ${replaceReasons.join(', ')} of a pipeline in place: it is deleted with its runs and made again, enabled as declared`,
              },
            ]
          : [],
    };
  },

  async create(ctx, desired, checkpoint): Promise<Applied> {
    const client = ctx.client.dataPipelinesClient;
    const id = await client.createDataPipeline({
      organizationId: desired.organization_id,
      name: desired.name,
      stages: stagesOf(desired),
      schedule: desired.schedule,
      enableBackfill: desired.enable_backfill,
      dataSourceType: desired.data_source_type,
    });
    const applied = { ids: { id }, outputs: { id } };
    await checkpoint(applied);
    if (!desired.enabled) await client.setDataPipelineEnabled(id, false);
    return applied;
  },

  async update(ctx, entry, desired, plannedVersion): Promise<Applied> {
    const client = ctx.client.dataPipelinesClient;
    const id = entry.ids.id ?? '';
    const current = await client.getDataPipeline(id);
    if (!current) throw new FleetformError(`data pipeline ${id} no longer exists on the service`, { hint: 'plan again' });
    if (plannedVersion !== null && versionOf(current) !== plannedVersion)
      throw new FleetformError(`data pipeline ${id} changed on the service since the plan was made`, { hint: 'plan again' });
    if (current.name !== desired.name) await client.renameDataPipeline(id, desired.name);
    if (current.enabled !== desired.enabled) await client.setDataPipelineEnabled(id, desired.enabled);
    return { ids: entry.ids, outputs: entry.outputs };
  },

  async delete(ctx, entry) {
    const id = entry.ids.id;
    if (id) await unlessNotFound(() => ctx.client.dataPipelinesClient.deleteDataPipeline(id));
    return 'deleted';
  },

  retainOnDelete: () => false,

  identity(view) {
    const name = text(view.name);
    return name ? { key: { name, organization_id: text(view.organization_id) }, label: `data pipeline ${name}` } : undefined;
  },

  async findCreated(ctx, key, managedIds): Promise<Applied | undefined> {
    const found = (await ctx.client.dataPipelinesClient.listDataPipelines(text(key.organization_id) || ctx.organizationId)).find(
      (p) => p.name === key.name && !managedIds.has(p.id),
    );
    return found ? { ids: { id: found.id }, outputs: { id: found.id } } : undefined;
  },

  async importById(ctx, id): Promise<Applied | undefined> {
    const pipeline = await unlessNotFound(() => ctx.client.dataPipelinesClient.getDataPipeline(id));
    return pipeline ? { ids: { id }, outputs: { id } } : undefined;
  },
};
