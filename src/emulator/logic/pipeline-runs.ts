/**
 * The runs of a data pipeline, as pure functions of the pipeline and the emulator's clock:
 * an enabled pipeline runs at each tick of its schedule, reading the data since the tick
 * before. The emulator holds no captured data to aggregate: a run completes when every
 * stage is an aggregation stage it knows, and fails naming the first one that is not.
 */
import { decodeBsonDocument } from '../../domain/bson';
import { scheduledWindows } from '../../domain/data-pipelines';
import { errorMessage } from '../../domain/errors';
import { DataPipelineRunStatus } from '../../api/own-messages';
import type { DataPipelineRecord, PipelineRunRecord } from '../store/data-pipelines';

/** The aggregation stages a pipeline may use on the emulator. */
export const KNOWN_STAGES: ReadonlySet<string> = new Set([
  '$addFields',
  '$bucket',
  '$bucketAuto',
  '$count',
  '$densify',
  '$facet',
  '$fill',
  '$geoNear',
  '$group',
  '$limit',
  '$match',
  '$project',
  '$redact',
  '$replaceRoot',
  '$replaceWith',
  '$sample',
  '$set',
  '$setWindowFields',
  '$skip',
  '$sort',
  '$sortByCount',
  '$unset',
  '$unwind',
]);

/** At most this many runs are recorded at once: the latest ticks of a long gap. */
export const MAX_RUNS_AT_ONCE = 100;

/** Why the stages cannot run, or undefined when they can. */
export function stagesFailure(stages: readonly Uint8Array[]): string | undefined {
  for (const [i, bytes] of stages.entries()) {
    let operator: string | undefined;
    try {
      operator = Object.keys(decodeBsonDocument(bytes, `stage ${i}`))[0];
    } catch (err) {
      return errorMessage(err);
    }
    if (operator === undefined || !KNOWN_STAGES.has(operator))
      return `stage ${i}: unrecognized pipeline stage name: ${JSON.stringify(operator ?? '')}`;
  }
  return undefined;
}

export type DueRun = Omit<PipelineRunRecord, 'id' | 'pipelineId'>;

/** The runs due by `now` since the pipeline's last recorded tick; none while it is disabled. */
export function dueRuns(pipeline: DataPipelineRecord, now: number): DueRun[] {
  if (!pipeline.enabled || now <= pipeline.runsThrough) return [];
  const failure = stagesFailure(pipeline.stages);
  return scheduledWindows(pipeline.schedule, pipeline.runsThrough, now, MAX_RUNS_AT_ONCE).map((w) => ({
    startTime: w.end,
    endTime: w.end,
    dataStartTime: w.start,
    dataEndTime: w.end,
    status: failure ? DataPipelineRunStatus.FAILED : DataPipelineRunStatus.COMPLETED,
    errorMessage: failure ?? '',
  }));
}
