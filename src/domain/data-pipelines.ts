/**
 * Data pipelines: an MQL aggregation run on an organization's captured data on a cron
 * schedule in UTC; each run reads the data between the schedule's previous tick and its
 * own. These are the rules of a pipeline's query and schedule, shared by the declaration's
 * kind, its construct and the emulator.
 */
import type { CronExpressionParser as Parser } from 'cron-parser';
import { errorMessage } from './errors';
import { isObject, type JsonObject, type ReadonlyJsonValue } from './json-value';

/** Where a pipeline reads: the standard store of captured data, or the hot store of recent data. */
export const DATA_SOURCE_TYPES = ['standard', 'hot_storage'] as const;
export type DataSourceType = (typeof DATA_SOURCE_TYPES)[number];

/**
 * One stage of an aggregation: an object with one key, the `$` operator, e.g. `{ $match: {...} }`
 * (undefined allowed so that a list of different stages types as a list of stages).
 */
export type MqlStage = { readonly [operator: `$${string}`]: ReadonlyJsonValue | undefined };

/** A problem of one part of a pipeline: where, what, and the fix. */
export interface PipelineProblem {
  readonly path: string;
  readonly message: string;
  readonly hint: string;
}

const STAGE_HINT = 'write each stage as an object with one operator key, e.g. {"$match": {"component_name": "sensor"}}';

/** What is wrong with stage `index` of a query (an object already), or undefined. */
export function stageProblem(stage: unknown, index: number, path = `query[${index}]`): PipelineProblem | undefined {
  if (!isObject(stage) || Array.isArray(stage)) return { path, message: `stage ${index} is not an object`, hint: STAGE_HINT };
  const keys = Object.keys(stage);
  const operators = keys.filter((k) => k.startsWith('$'));
  if (keys.length === 1 && operators.length === 1) return undefined;
  const found = keys.length === 0 ? 'no key' : `the keys ${keys.map((k) => JSON.stringify(k)).join(', ')}`;
  return { path, message: `stage ${index} has ${found}: a stage has exactly one key, its "$" operator`, hint: STAGE_HINT };
}

/** A stage given as JSON text, read; or the problem of its text or shape. */
export function readStageText(text: string, index: number): { stage: JsonObject } | { problem: PipelineProblem } {
  const path = `query[${index}]`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { problem: { path, message: `stage ${index} is not JSON text: ${errorMessage(err)}`, hint: STAGE_HINT } };
  }
  const problem = stageProblem(parsed, index, path);
  return problem ? { problem } : { stage: parsed as JsonObject };
}

/** cron-parser, loaded when a schedule is first read. */
function cronParser(): typeof Parser {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, synchronously
  return (require('cron-parser') as typeof import('cron-parser')).CronExpressionParser;
}

const CRON_HINT = 'five fields, minute hour day-of-month month day-of-week, in UTC: e.g. "0 * * * *" (hourly) or "*/15 * * * *"';

/** What is wrong with a pipeline's schedule, or undefined: five cron fields, read in UTC. */
export function scheduleProblem(schedule: string, path = 'schedule'): PipelineProblem | undefined {
  const fields = schedule.trim().split(/\s+/).filter(Boolean);
  if (fields.length !== 5)
    return {
      path,
      message: `the schedule ${JSON.stringify(schedule)} has ${fields.length} field${fields.length === 1 ? '' : 's'}, not 5`,
      hint: CRON_HINT,
    };
  try {
    cronParser().parse(fields.join(' '), { tz: 'UTC', strict: false });
  } catch (err) {
    return { path, message: `the schedule ${JSON.stringify(schedule)} is not a cron expression: ${errorMessage(err)}`, hint: CRON_HINT };
  }
  return undefined;
}

/** One run a schedule implies: it starts at `end` and reads the data of [start, end). */
export interface ScheduledWindow {
  readonly start: number;
  readonly end: number;
}

/**
 * The runs a (valid) schedule implies for ticks after `after` up to `until` (epoch ms), the
 * latest `max` of them: each reads the data since the schedule's tick before it.
 */
export function scheduledWindows(schedule: string, after: number, until: number, max: number): ScheduledWindow[] {
  const ends: number[] = [];
  const ticks = cronParser().parse(schedule.trim(), { tz: 'UTC', currentDate: new Date(until + 1) });
  while (ends.length < max) {
    const tick = ticks.prev().getTime();
    if (tick <= after) break;
    ends.push(tick);
  }
  return ends.reverse().map((end) => ({
    start: cronParser()
      .parse(schedule.trim(), { tz: 'UTC', currentDate: new Date(end) })
      .prev()
      .getTime(),
    end,
  }));
}
