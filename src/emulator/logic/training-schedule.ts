/**
 * When a training job moves by itself, as pure functions of the job and the training
 * duration D: a job waits PENDING for a tenth of D, trains IN_PROGRESS for the rest, and
 * is COMPLETED D after it was submitted; a cancel takes a tenth of D from CANCELING to
 * CANCELED. Each phase counts from the job's last transition, so a job stepped by the
 * controls takes its next phase whole from the step.
 */
import { TrainingStatus } from '../../domain';
import type { TrainingJobRecord } from '../store/jobs';
import { advanceJob, type Transition } from './training';

/** Statuses a job leaves by itself. */
export const MOVING_STATUSES: readonly TrainingStatus[] = [TrainingStatus.PENDING, TrainingStatus.IN_PROGRESS, TrainingStatus.CANCELING];

/** How long a job stays in a status before it moves by itself; undefined for a status it stays in. */
export function phaseMs(status: TrainingStatus, durationMs: number): number | undefined {
  const tenth = Math.floor(durationMs / 10);
  switch (status) {
    case TrainingStatus.PENDING:
    case TrainingStatus.CANCELING:
      return tenth;
    case TrainingStatus.IN_PROGRESS:
      return durationMs - tenth;
    default:
      return undefined;
  }
}

/** The shortest phase: a job whose last transition is more recent than this cannot be due. */
export function shortestPhaseMs(durationMs: number): number {
  return Math.min(...MOVING_STATUSES.map((s) => phaseMs(s, durationMs) ?? 0));
}

/**
 * The transitions due by `now`, in order, each taking effect at the instant its phase
 * ended (so its timestamps are those of a job that moved on time). `datasetType` is as
 * advanceJob takes it.
 */
export function dueTransitions(
  job: TrainingJobRecord,
  durationMs: number,
  now: number,
  newModelId: () => string,
  datasetType?: number,
): Transition[] {
  const out: Transition[] = [];
  let current = job;
  for (;;) {
    const phase = phaseMs(current.status, durationMs);
    if (phase === undefined) return out;
    const at = current.lastModified + phase;
    if (at > now) return out;
    const t = advanceJob(current, at, newModelId, datasetType);
    out.push(t);
    current = t.job;
  }
}
