import { z } from 'zod';
import { scheduleProblem, stageProblem, type MqlStage } from '../domain/data-pipelines';
import { dataPipelineResource } from '../domain/resource-attributes';
import { Token } from './cdk';
import { registerChecks, type IssueSink } from './checks';
import { kindConstruct, propForm, type KindProps } from './kind-construct';
import { constructTypeOf } from './construct-types';
import { propSchemas } from './props';

export type { MqlStage } from '../domain/data-pipelines';

/** The stages of a query: objects with one `$` operator key each, every one checked with its index. */
const querySchema = z.array(z.custom<MqlStage>(() => true)).superRefine((stages, ctx) => {
  stages.forEach((stage, i) => {
    const problem = stageProblem(stage, i);
    if (problem) ctx.addIssue({ code: 'custom', path: [i], message: `${problem.message}; ${problem.hint}` });
  });
});

const dataPipelineForms = {
  // An empty name is reported by the app's analysis, with duplicate names.
  name: propForm(propSchemas.text.optional(), { default: (constructId: string) => constructId }),
  query: propForm(querySchema, { synthesize: (stages: readonly MqlStage[]) => stages.map((stage) => JSON.stringify(stage)) }),
} as const;

/**
 * Properties of a {@link DataPipeline}: `name` defaults to the construct id; `query` is the
 * aggregation's stages as objects, each with one `$` operator key; `schedule` five cron
 * fields in UTC.
 */
export type DataPipelineProps = KindProps<typeof dataPipelineResource.attributes, typeof dataPipelineForms>;

/**
 * A data pipeline: an MQL aggregation of the organization's captured data, run on a cron
 * schedule; one `fleetform_data_pipeline` resource, `dataPipelineId` the id the service assigns.
 */
export class DataPipeline extends kindConstruct(dataPipelineResource, {
  constructName: 'DataPipeline',
  forms: dataPipelineForms,
  ids: { dataPipelineId: 'id' },
}) {
  /** Whether x is a DataPipeline (of any copy of this library). */
  static isDataPipeline(x: unknown): x is DataPipeline {
    return constructTypeOf(x) === DataPipeline.tfResourceType;
  }
}

/** The run-time check of {@link DataPipelineProps}: strict, without coercion. */
export const dataPipelinePropsSchema = DataPipeline.propsSchema;

/** Pipeline names: not empty, unique per organization; schedules: five cron fields. */
function checkPipelines(pipelines: readonly DataPipeline[], sink: IssueSink): void {
  const seen = new Map<string, DataPipeline>();
  for (const pipeline of pipelines) {
    const schedule = Token.isUnresolved(pipeline.schedule) ? undefined : scheduleProblem(pipeline.schedule);
    if (schedule) sink.error(pipeline, 'schedule', 'data-pipeline-schedule', schedule.message, schedule.hint);
    if (pipeline.name.trim() === '') {
      sink.error(
        pipeline,
        'name',
        'data-pipeline-name',
        'data pipeline name is empty',
        'name it, or leave name out to use the construct id',
      );
      continue;
    }
    const key = `${pipeline.organizationId ?? ''}\u0000${pipeline.name}`;
    const first = seen.get(key);
    if (first)
      sink.error(
        pipeline,
        'name',
        'duplicate-data-pipeline-name',
        `data pipeline name "${pipeline.name}" is also used by ${first.node.path}`,
        'data pipeline names are unique per organization; rename one',
      );
    else seen.set(key, pipeline);
  }
}

registerChecks<DataPipeline>(DataPipeline.tfResourceType, { acrossStack: checkPipelines });
