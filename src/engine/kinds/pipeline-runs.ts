/** How each managed data pipeline has run lately: its newest runs, with when each started and ended and why one failed. */
import type { ServiceClient } from '../../api/client';
import type { PipelineRunStatus } from '../../api/client/types';
import { dataPipelineResource } from '../../domain/resource-attributes';
import type { State } from '../state/schema';
import { unlessNotFound } from './not-found';

/** How many of a pipeline's newest runs status shows. */
export const PIPELINE_RUNS_SHOWN = 3;

export interface PipelineRunSummary {
  readonly status: PipelineRunStatus;
  readonly startTime?: string;
  readonly endTime?: string;
  readonly error?: string;
}

export interface PipelineRuns {
  readonly stack: string;
  readonly address: string;
  readonly pipelineId: string;
  /** The pipeline's name on the service; `-` when the service no longer has it. */
  readonly name: string;
  /** `enabled`, `disabled`, or `gone` when the service no longer has it. */
  readonly state: 'enabled' | 'disabled' | 'gone';
  /** Its newest runs, newest first (at most PIPELINE_RUNS_SHOWN). */
  readonly runs: readonly PipelineRunSummary[];
}

function summary(run: Awaited<ReturnType<ServiceClient['dataPipelinesClient']['listDataPipelineRuns']>>[number]): PipelineRunSummary {
  return {
    status: run.status,
    ...(run.startTime ? { startTime: run.startTime.toISOString() } : {}),
    ...(run.endTime ? { endTime: run.endTime.toISOString() } : {}),
    ...(run.errorMessage ? { error: run.errorMessage } : {}),
  };
}

/** The newest runs of every data pipeline in the given states. */
export async function pipelineRuns(client: ServiceClient, states: readonly State[]): Promise<PipelineRuns[]> {
  const entries = states.flatMap((state) =>
    Object.entries(state.resources)
      .filter(([, e]) => e.type === dataPipelineResource.type && e.ids.id !== undefined)
      .map(([address, e]) => ({ stack: state.stack, address, pipelineId: e.ids.id as string })),
  );
  const pipelines = client.dataPipelinesClient;
  return Promise.all(
    entries.map(async (e): Promise<PipelineRuns> => {
      const pipeline = await pipelines.getDataPipeline(e.pipelineId);
      if (!pipeline) return { ...e, name: '-', state: 'gone', runs: [] };
      const runs = (await unlessNotFound(() => pipelines.listDataPipelineRuns(e.pipelineId, PIPELINE_RUNS_SHOWN))) ?? [];
      return {
        ...e,
        name: pipeline.name,
        state: pipeline.enabled ? 'enabled' : 'disabled',
        runs: runs.slice(0, PIPELINE_RUNS_SHOWN).map(summary),
      };
    }),
  );
}
