/**
 * The last lines a failed training job logged: what a plan, an apply's error and the
 * dashboard show so that the cause is read where the failure is, not in another command.
 */
import type { TrainingJobLogEntry } from '../../api/client';
import { errorMessage } from '../../domain/errors';
import { isObject, type JsonValue } from '../json';
import type { KindContext, PlanNote } from '../kind';

/** How many of a failed job's last log lines are shown. */
export const FAILED_JOB_LOG_LINES = 5;

/** One log line as shown: its time (UTC, to the second), its level and its message. */
export function logLineText(entry: TrainingJobLogEntry): string {
  const time = entry.time ? `${entry.time.toISOString().slice(0, 19).replace('T', ' ')}Z ` : '';
  return `${time}${entry.level} ${entry.message}`;
}

/** The last `count` lines of a job's log, oldest first. */
export function logTail(entries: readonly TrainingJobLogEntry[], count = FAILED_JOB_LOG_LINES): string[] {
  return entries.slice(Math.max(0, entries.length - count)).map(logLineText);
}

/** What was read of a job's log: its last lines, or why it could not be read (the failure is still reported). */
export type JobLogTail = { readonly lines: readonly string[] } | { readonly unreadable: string };

/** Reads a job's log and keeps its last lines; a log that cannot be read says why instead of failing the caller. */
export async function readJobLogTail(ctx: KindContext, jobId: string, count = FAILED_JOB_LOG_LINES): Promise<JobLogTail> {
  try {
    return { lines: logTail(await ctx.client.mlTrainingClient.getTrainingJobLogs(jobId), count) };
  } catch (err) {
    return { unreadable: errorMessage(err) };
  }
}

function heading(jobId: string, tail: JobLogTail): string {
  if ('unreadable' in tail) return `the log of training job ${jobId} could not be read: ${tail.unreadable}`;
  return tail.lines.length === 0 ? `training job ${jobId} logged nothing` : `the last lines training job ${jobId} logged:`;
}

/** The tail as lines under a heading, for an error's text. */
export function logTailLines(jobId: string, tail: JobLogTail): string[] {
  return [heading(jobId, tail), ...('lines' in tail ? tail.lines.map((l) => `  ${l}`) : [])];
}

/** The tail as a plan note: the heading, and the lines as its value. */
export function logTailNote(jobId: string, tail: JobLogTail, path?: string): PlanNote {
  const lines = 'lines' in tail ? tail.lines : [];
  return { level: 'warning', ...(path ? { path } : {}), message: heading(jobId, tail), ...(lines.length > 0 ? { value: [...lines] } : {}) };
}

/** The tail as an observation keeps it (a JSON value). */
export function jobLogTailData(tail: JobLogTail): JsonValue {
  return 'lines' in tail ? { lines: [...tail.lines] } : { unreadable: tail.unreadable };
}

/** The tail an observation kept, if it is one. */
export function jobLogTailOf(value: JsonValue | undefined): JobLogTail | undefined {
  if (!isObject(value)) return undefined;
  if (typeof value.unreadable === 'string') return { unreadable: value.unreadable };
  const lines = value.lines;
  return Array.isArray(lines) ? { lines: lines.filter((l): l is string => typeof l === 'string') } : undefined;
}
