/**
 * Jobs of a simulated machine: a method of a resource called on a schedule (`continuous`,
 * a Go duration, or a cron line of 5 fields, or 6 with seconds first). A run fails when its
 * resource is missing or not ready, or when a fault fails it; each run's outcome is logged
 * (a continuous job only when its outcome changes).
 */
import { parseGoDuration } from '../../domain/duration';
import { ResourceState, type LogLine, type ResourceView } from './states';

/** A job of the config, its fields as written. */
export interface FetchedJob {
  readonly name: string;
  readonly schedule: string;
  readonly resource: string;
  readonly method: string;
}

export interface JobRun extends FetchedJob {
  /** When it last ran (or was scheduled, before its first run). */
  readonly lastAt: number;
  readonly runs: number;
  readonly failures: number;
  /** The last run's error; empty when it succeeded (or has not run). */
  readonly error: string;
  /** When its newest runs succeeded and failed (ms, oldest first, at most RECENT_RUNS each); absent in runs recorded before. */
  readonly succeededAt?: readonly number[];
  readonly failedAt?: readonly number[];
}

/** Run times a machine keeps of each outcome of a job, as its status reports them. */
export const RECENT_RUNS = 10;

function keepRecent(times: readonly number[] | undefined, now: number): number[] {
  return [...(times ?? []), now].slice(-RECENT_RUNS);
}

type Schedule =
  | { readonly kind: 'continuous' }
  | { readonly kind: 'every'; readonly ms: number }
  | { readonly kind: 'cron'; readonly fields: readonly ((n: number) => boolean)[]; readonly seconds: boolean };

const CRON_RANGES: readonly (readonly [number, number])[] = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 7],
];

/** One cron field as a test of a number: `*`, `n`, `a-b`, lists and `/step`. */
function cronField(text: string, [low, high]: readonly [number, number]): ((n: number) => boolean) | undefined {
  const tests: ((n: number) => boolean)[] = [];
  for (const part of text.split(',')) {
    const m = /^(\*|\d+(?:-\d+)?)(?:\/(\d+))?$/.exec(part);
    if (!m) return undefined;
    const step = m[2] === undefined ? 1 : Number(m[2]);
    const [from, to] =
      m[1] === '*'
        ? [low, high]
        : ((m[1] as string)
            .split('-')
            .map(Number)
            .concat(m[1]?.includes('-') ? [] : [Number(m[1])]) as [number, number]);
    if (step < 1 || from < low || to > high || from > to) return undefined;
    tests.push((n) => n >= from && n <= to && (n - from) % step === 0);
  }
  return (n) => tests.some((t) => t(n));
}

/** The schedule a job's text means, or undefined when it is none. */
export function parseSchedule(text: string): Schedule | undefined {
  const t = text.trim();
  if (t === 'continuous') return { kind: 'continuous' };
  const ms = parseGoDuration(t);
  if (ms !== undefined) return ms > 0 ? { kind: 'every', ms } : undefined;
  const words = t.split(/\s+/);
  if (words.length !== 5 && words.length !== 6) return undefined;
  const seconds = words.length === 6;
  const ranges = seconds ? [[0, 59] as const, ...CRON_RANGES] : CRON_RANGES;
  const fields = words.map((w, i) => cronField(w, ranges[i] as readonly [number, number]));
  return fields.every((f) => f !== undefined) ? { kind: 'cron', fields: fields as ((n: number) => boolean)[], seconds } : undefined;
}

function cronMatches(s: Extract<Schedule, { kind: 'cron' }>, at: Date): boolean {
  const [sec, ...rest] = s.seconds ? s.fields : [undefined, ...s.fields];
  const [minute, hour, day, month, weekday] = rest as ((n: number) => boolean)[];
  const dow = at.getUTCDay();
  return (
    (sec === undefined || sec(at.getUTCSeconds())) &&
    minute!(at.getUTCMinutes()) &&
    hour!(at.getUTCHours()) &&
    day!(at.getUTCDate()) &&
    month!(at.getUTCMonth() + 1) &&
    (weekday!(dow) || (dow === 0 && weekday!(7)))
  );
}

/** Steps looked at between two check-ins for a cron schedule, at most (a day of minutes). */
const MAX_CRON_STEPS = 1440;

/** Whether the schedule fires in (since, now]. */
function due(s: Schedule, since: number, now: number): boolean {
  if (s.kind === 'continuous') return true;
  if (s.kind === 'every') return now - since >= s.ms;
  const unit = s.seconds ? 1000 : 60_000;
  let t = Math.floor(since / unit) * unit + unit;
  for (let i = 0; t <= now && i < MAX_CRON_STEPS; i += 1, t += unit) if (cronMatches(s, new Date(t))) return true;
  return false;
}

/** Why a job cannot be scheduled at all, or undefined. */
function invalidJob(job: FetchedJob): string | undefined {
  const missing = (['name', 'schedule', 'resource', 'method'] as const).filter((k) => job[k] === '');
  if (missing.length > 0) return `job ${JSON.stringify(job.name)} is missing ${missing.join(', ')} and is skipped`;
  if (!parseSchedule(job.schedule))
    return `job ${job.name}: schedule ${JSON.stringify(job.schedule)} is neither continuous, a duration nor a cron line; it never runs`;
  return undefined;
}

/** The jobs after a check-in at `now`: new ones are scheduled, due ones run against the resources. */
export function stepJobs(
  before: readonly JobRun[],
  jobs: readonly FetchedJob[],
  resources: readonly ResourceView[],
  now: number,
  health: { jobFails?(job: string): boolean },
  logs: LogLine[],
): JobRun[] {
  const previous = new Map(before.map((j) => [j.name, j]));
  return jobs.map((job): JobRun => {
    const was = previous.get(job.name);
    const same = was !== undefined && was.schedule === job.schedule && was.resource === job.resource && was.method === job.method;
    const invalid = invalidJob(job);
    if (invalid) {
      if (!same || was.error !== invalid) logs.push({ level: 'warn', logger: 'rdk.job_manager', message: invalid });
      return { ...job, lastAt: now, runs: 0, failures: 0, error: invalid };
    }
    const schedule = parseSchedule(job.schedule) as Schedule;
    if (!same) {
      logs.push({
        level: 'info',
        logger: 'rdk.job_manager',
        message: `job ${job.name} scheduled (${job.schedule}): ${job.method} on ${job.resource}`,
      });
      // A new job's first run comes at its first due time after now; a continuous one runs at once.
      if (schedule.kind !== 'continuous') return { ...job, lastAt: now, runs: 0, failures: 0, error: '' };
    }
    const current = same ? was : { ...job, lastAt: now, runs: 0, failures: 0, error: '' };
    if (same && !due(schedule, current.lastAt, now)) return current;
    const target = resources.find((r) => r.name === job.resource);
    const error =
      target === undefined
        ? `resource ${JSON.stringify(job.resource)} not found`
        : target.state !== ResourceState.READY
          ? `resource ${JSON.stringify(job.resource)} is not ready${target.error ? `: ${target.error}` : ''}`
          : health.jobFails?.(job.name)
            ? `${job.method} returned an error`
            : '';
    const quiet = schedule.kind === 'continuous' && current.runs > 0 && current.error === error;
    if (!quiet) {
      logs.push(
        error === ''
          ? { level: 'info', logger: 'rdk.job_manager', message: `job ${job.name} succeeded: ${job.method} on ${job.resource}` }
          : { level: 'error', logger: 'rdk.job_manager', message: `job ${job.name} failed: ${job.method} on ${job.resource}: ${error}` },
      );
    }
    const outcome =
      error === ''
        ? { succeededAt: keepRecent(current.succeededAt, now), failedAt: current.failedAt ?? [] }
        : { succeededAt: current.succeededAt ?? [], failedAt: keepRecent(current.failedAt, now) };
    return { ...current, lastAt: now, runs: current.runs + 1, failures: current.failures + (error === '' ? 0 : 1), error, ...outcome };
  });
}
