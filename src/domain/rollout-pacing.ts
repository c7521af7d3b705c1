/**
 * How fast and when a rollout writes its machines, and where it waits for a person. Pure
 * rules: the runner asks them with the time of its clock and acts on the answer.
 *
 * - A rate (`per_minute`, for the whole rollout or one wave) spaces writes evenly: the next
 *   write goes no sooner than `60 s / per_minute` after the one before, so no minute ever
 *   holds more writes than the rate.
 * - A ramp starts at `start` machines a minute and multiplies the rate by `factor` each time
 *   a wave passes (or, with `every_written`, each time that many more machines were
 *   written), never above `ceiling`. A wave's own rate wins over the rollout's.
 * - A schedule keeps every write at or after `not_before`; at `stop_by` the rollout pauses
 *   before its next write (`pause`), lets the wave it is in finish its writes and gates and
 *   pauses after it (`finish-wave`), or stops and rolls back what it wrote (`rollback`).
 * - A pause step holds the rollout before the wave after it until someone releases it.
 * - A machine that joins while a rollout runs (created, or newly rolled out to, after the
 *   journal's waves were drawn) goes in the wave the rollout is in, or in its last wave.
 */
import { z } from 'zod';

export const ROLLOUT_STOP_ACTIONS = ['pause', 'finish-wave', 'rollback'] as const;
export type RolloutStopAction = (typeof ROLLOUT_STOP_ACTIONS)[number];

export const LATE_JOINER_PLACEMENTS = ['current-wave', 'last-wave'] as const;
export type LateJoinerPlacement = (typeof LATE_JOINER_PLACEMENTS)[number];

/** The highest rate a rollout takes: one write every 10 ms. */
export const MAX_PER_MINUTE = 6000;

const perMinute = z.number().positive().max(MAX_PER_MINUTE);
const isoTime = z.string().refine((t) => !Number.isNaN(Date.parse(t)), 'expected a time like 2026-12-02T09:00:00Z');

export const RolloutRampSchema = z.strictObject({
  /** Machines a minute at the start. */
  start: perMinute,
  /** What the rate is multiplied by at each step. */
  factor: z.number().gt(1).max(10),
  /** The rate it never goes above. */
  ceiling: perMinute,
  /** Step up each time this many more machines were written, rather than each time a wave passes. */
  every_written: z.number().int().positive().optional(),
});
export type RolloutRamp = z.infer<typeof RolloutRampSchema>;

/** A rollout's rate: even spacing, or an exponential ramp. */
export const RolloutRateSchema = z.union([z.strictObject({ per_minute: perMinute }), z.strictObject({ ramp: RolloutRampSchema })]);
export type RolloutRate = z.infer<typeof RolloutRateSchema>;

export const RolloutScheduleSchema = z.strictObject({
  not_before: isoTime.optional(),
  stop_by: isoTime.optional(),
  at_stop: z.enum(ROLLOUT_STOP_ACTIONS),
});
export type RolloutSchedule = z.infer<typeof RolloutScheduleSchema>;

/** A rollout's pacing as synthesized: rates, pause steps (before the policy wave at each index), schedule, late joiners. */
export const RolloutPacingSchema = z.strictObject({
  rate: RolloutRateSchema.optional(),
  /** Rates of single waves, by the index of the policy wave. */
  wave_rates: z.array(z.strictObject({ wave: z.number().int().nonnegative(), per_minute: perMinute })).optional(),
  /** Pause steps: each holds the rollout before the policy wave at that index (the waves' length: before the machines no wave took). */
  pauses: z.array(z.number().int().nonnegative()).optional(),
  schedule: RolloutScheduleSchema.optional(),
  late_joiners: z.enum(LATE_JOINER_PLACEMENTS).optional(),
});
export type RolloutPacing = z.infer<typeof RolloutPacingSchema>;

/** What a planned wave does besides its machines: its rate, and whether a pause step holds the rollout before it. */
export interface WaveSteps {
  /** Machines a minute when the wave has its own rate or the rollout an even one; the ramp's rate is worked out as it runs. */
  readonly perMinute?: number;
  readonly ramp?: RolloutRamp;
  readonly pauseBefore: boolean;
}

/**
 * The steps of each planned wave, given the index of the policy wave each came from (`from`;
 * the machines no wave took come after every policy wave). A pause step lies before a planned
 * wave when its index is after the previous planned wave's and at most this one's: a pause
 * before a wave that found no machine holds the next wave that did.
 */
export function plannedWaveSteps(pacing: RolloutPacing | undefined, froms: readonly number[]): WaveSteps[] {
  const pauses = pacing?.pauses ?? [];
  return froms.map((from, k) => {
    const previous = k === 0 ? -1 : (froms[k - 1] ?? -1);
    const own = pacing?.wave_rates?.find((r) => r.wave === from)?.per_minute;
    const rate = pacing?.rate;
    const pauseBefore = pauses.some((p) => p > previous && p <= from);
    if (own !== undefined) return { perMinute: own, pauseBefore };
    if (rate && 'per_minute' in rate) return { perMinute: rate.per_minute, pauseBefore };
    if (rate && 'ramp' in rate) return { ramp: rate.ramp, pauseBefore };
    return { pauseBefore };
  });
}

/** Where a ramp stands: how many waves passed, how many machines were written. */
export interface RampProgress {
  readonly wavesPassed: number;
  readonly written: number;
}

/** The ramp's rate now: `start` times `factor` for each step taken, capped at `ceiling`. */
export function rampRate(ramp: RolloutRamp, progress: RampProgress): number {
  const steps = ramp.every_written === undefined ? progress.wavesPassed : Math.floor(progress.written / ramp.every_written);
  return Math.min(ramp.ceiling, ramp.start * ramp.factor ** steps);
}

/** A wave's rate now (machines a minute), or undefined when it writes its machines at once. */
export function waveRate(steps: WaveSteps, progress: RampProgress): number | undefined {
  if (steps.perMinute !== undefined) return steps.perMinute;
  return steps.ramp ? rampRate(steps.ramp, progress) : undefined;
}

/** The least time between two writes at `perMinute`. */
export function writeSpacingMs(perMinute: number): number {
  return Math.ceil(60_000 / perMinute);
}

/**
 * When the next write may go (ms since the epoch): at once without a rate or before any
 * write, else no sooner than the spacing after the latest write.
 */
export function nextWriteAt(writes: readonly number[], now: number, perMinute: number | undefined): number {
  if (perMinute === undefined || writes.length === 0) return now;
  return Math.max(now, Math.max(...writes) + writeSpacingMs(perMinute));
}

/** What the schedule says of a write now. */
export type ScheduleVerdict =
  | { readonly kind: 'write' }
  /** Too early: nothing is written before `until`. */
  | { readonly kind: 'wait'; readonly until: number }
  /** `stop_by` passed: what the rollout does. */
  | { readonly kind: 'stop'; readonly action: RolloutStopAction; readonly at: number };

/**
 * Whether the schedule lets a write go at `now`. `stopReleased`: someone released the
 * rollout once it stopped for `stop_by`, so the stop no longer applies.
 */
export function scheduleVerdict(schedule: RolloutSchedule | undefined, now: number, stopReleased = false): ScheduleVerdict {
  if (!schedule) return { kind: 'write' };
  const notBefore = schedule.not_before === undefined ? undefined : Date.parse(schedule.not_before);
  const stopBy = schedule.stop_by === undefined ? undefined : Date.parse(schedule.stop_by);
  if (stopBy !== undefined && now >= stopBy && !stopReleased) return { kind: 'stop', action: schedule.at_stop, at: stopBy };
  if (notBefore !== undefined && now < notBefore) return { kind: 'wait', until: notBefore };
  return { kind: 'write' };
}

/** The schedule's problems: a window that closes before it opens. */
export function scheduleProblems(schedule: RolloutSchedule): string[] {
  if (schedule.not_before === undefined || schedule.stop_by === undefined) return [];
  return Date.parse(schedule.stop_by) <= Date.parse(schedule.not_before)
    ? [`stopBy ${schedule.stop_by} is not after notBefore ${schedule.not_before}: nothing could be written`]
    : [];
}

/**
 * The wave (1-based) a machine that joined while the rollout runs goes in: the one the
 * rollout is in (`current-wave`, the default) or its last wave (`last-wave`). `current` is
 * the wave the rollout goes on at.
 */
export function lateJoinerWave(placement: LateJoinerPlacement | undefined, current: number, waves: number): number {
  const last = Math.max(1, waves);
  return placement === 'last-wave' ? last : Math.min(Math.max(1, current), last);
}

/** A wave's pacing in words, for the plan and `rollout status`: `30/min`, `ramp 5/min x2 up to 50/min`, or ''. */
export function describeWaveSteps(steps: WaveSteps, progress: RampProgress): string {
  if (steps.perMinute !== undefined) return `at most ${steps.perMinute}/min`;
  if (!steps.ramp) return '';
  const r = steps.ramp;
  const by = r.every_written === undefined ? 'each passed wave' : `every ${r.every_written} written`;
  return `ramp at ${rampRate(r, progress)}/min (from ${r.start}/min x${r.factor} ${by}, up to ${r.ceiling}/min)`;
}

/** The schedule in words. */
export function describeSchedule(schedule: RolloutSchedule): string {
  const parts: string[] = [];
  if (schedule.not_before) parts.push(`writes nothing before ${schedule.not_before}`);
  if (schedule.stop_by) {
    const then =
      schedule.at_stop === 'pause'
        ? 'pauses before its next write'
        : schedule.at_stop === 'finish-wave'
          ? 'finishes the wave it is in, then pauses'
          : 'stops and rolls back the machines it wrote';
    parts.push(`at ${schedule.stop_by} it ${then}`);
  }
  return parts.join('; ');
}
