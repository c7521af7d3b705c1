/**
 * The pacing props of a Rollout: rates (of the rollout, of single waves), pause steps among
 * the waves, a schedule, and where machines joining late go. Read apart from the waves'
 * machine rules, into the policy's `pacing`.
 */
import type { IConstruct } from 'constructs';
import { z } from 'zod';
import { FleetformError } from '../domain/errors';
import {
  LATE_JOINER_PLACEMENTS,
  MAX_PER_MINUTE,
  ROLLOUT_STOP_ACTIONS,
  RolloutPacingSchema,
  scheduleProblems,
  type RolloutPacing,
  type RolloutRate,
  type RolloutSchedule,
} from '../domain/rollout-pacing';

/** A step among a Rollout's waves that holds it until someone releases it (`fleetform rollout resume`). */
export interface PauseStepProps {
  readonly pause: true;
}

/** A wave with its own rate: no faster than `perMinute` machines a minute. */
export interface WavePaceProps {
  readonly perMinute?: number;
}

/** One step of a Rollout's waves: a wave (with its own rate or not), or a pause step. */
export type RolloutStep<W> = (W & WavePaceProps) | PauseStepProps;

/** How fast a rollout writes: evenly (`perMinute`), or on an exponential ramp. */
export type RolloutRateProps =
  | { readonly perMinute: number }
  | {
      readonly ramp: {
        /** Machines a minute at the start. */
        readonly start: number;
        /** What the rate is multiplied by each time a wave passes (or each `everyWritten` machines). */
        readonly factor: number;
        /** The rate it never goes above. */
        readonly ceiling: number;
        /** Step up each time this many more machines were written, rather than each time a wave passes. */
        readonly everyWritten?: number;
      };
    };

/** When a rollout may write: from `notBefore`, and what it does at `stopBy`. */
export interface RolloutScheduleProps {
  /** Nothing is written before this time (an ISO 8601 time with its zone, or a Date). */
  readonly notBefore?: string | Date;
  /** From this time nothing more is written: `atStop` says what happens then. */
  readonly stopBy?: string | Date;
  /**
   * At `stopBy`: pause before the next write (`pause`), finish the wave it is in and pause
   * (`finish-wave`), or stop and roll back what it wrote (`rollback`). A paused rollout goes
   * on once released (`fleetform rollout resume`).
   * @default 'pause'
   */
  readonly atStop?: (typeof ROLLOUT_STOP_ACTIONS)[number];
}

/** The pacing props of a Rollout. */
export interface RolloutPacingProps {
  /** The rollout's rate; a wave's `perMinute` wins over it. @default every wave's machines written at once */
  readonly rate?: RolloutRateProps;
  readonly schedule?: RolloutScheduleProps;
  /**
   * Where a machine that joins while the rollout runs goes (one the stack creates, or one
   * newly changed, found by a later apply): the wave the rollout is in, or its last wave.
   * @default 'current-wave'
   */
  readonly lateJoiners?: (typeof LATE_JOINER_PLACEMENTS)[number];
}

const perMinute = z.number().positive().max(MAX_PER_MINUTE);
const time = z.union([z.string(), z.date()]);

/** The run-time check of the pacing props, part of the Rollout's props schema (so its hints name them). */
export const pacingPropsShape = {
  rate: z
    .union([
      z.strictObject({ perMinute }),
      z.strictObject({
        ramp: z.strictObject({
          start: perMinute,
          factor: z.number().gt(1).max(10),
          ceiling: perMinute,
          everyWritten: z.number().int().positive().optional(),
        }),
      }),
    ])
    .optional(),
  schedule: z
    .strictObject({ notBefore: time.optional(), stopBy: time.optional(), atStop: z.enum(ROLLOUT_STOP_ACTIONS).optional() })
    .optional(),
  lateJoiners: z.enum(LATE_JOINER_PLACEMENTS).optional(),
};

function isPause(step: unknown): step is PauseStepProps {
  return typeof step === 'object' && step !== null && 'pause' in step;
}

function isoTime(construct: IConstruct, field: string, value: string | Date | undefined): string | undefined {
  if (value === undefined) return undefined;
  const ms = value instanceof Date ? value.getTime() : Date.parse(value);
  if (Number.isNaN(ms) || (typeof value === 'string' && !/(Z|[+-]\d\d:?\d\d)$/i.test(value.trim())))
    throw new FleetformError(`Rollout: "${field}" is not a time with its zone: ${JSON.stringify(value)}`, {
      path: construct.node.path,
      hint: "write an ISO 8601 time with its zone, like '2026-12-02T09:00:00Z', or pass a Date",
    });
  return new Date(ms).toISOString();
}

function rateOf(rate: RolloutRateProps): RolloutRate {
  if ('perMinute' in rate) return { per_minute: rate.perMinute };
  const { start, factor, ceiling, everyWritten } = rate.ramp;
  return { ramp: { start, factor, ceiling, ...(everyWritten === undefined ? {} : { every_written: everyWritten }) } };
}

function scheduleOf(construct: IConstruct, s: RolloutScheduleProps): RolloutSchedule {
  const notBefore = isoTime(construct, 'schedule.notBefore', s.notBefore);
  const stopBy = isoTime(construct, 'schedule.stopBy', s.stopBy);
  const schedule: RolloutSchedule = {
    ...(notBefore ? { not_before: notBefore } : {}),
    ...(stopBy ? { stop_by: stopBy } : {}),
    at_stop: s.atStop ?? 'pause',
  };
  const [problem] = scheduleProblems(schedule);
  if (problem)
    throw new FleetformError(`Rollout: schedule: ${problem}`, { path: construct.node.path, hint: 'give a stopBy after notBefore' });
  return schedule;
}

/** A Rollout's waves with its pause steps and wave rates taken out. */
export interface RolloutSteps<W> {
  readonly waves: W[];
  /** Each pause step, as the index of the wave it holds the rollout before. */
  readonly pauses: number[];
  readonly waveRates: { wave: number; perMinute: number }[];
}

/**
 * Splits a Rollout's waves into its waves (pause steps and wave rates taken out), its pause
 * steps and its wave rates; a pause step must stand between waves or before the first, never last.
 */
export function splitSteps<W extends object>(construct: IConstruct, given: unknown): RolloutSteps<W> {
  const steps: readonly unknown[] = Array.isArray(given) ? given : [];
  const waves: W[] = [];
  const pauses: number[] = [];
  const waveRates: { wave: number; perMinute: number }[] = [];
  for (const [i, step] of steps.entries()) {
    if (isPause(step)) {
      if ((step as { pause: unknown }).pause !== true || Object.keys(step).length !== 1)
        throw new FleetformError(`Rollout: waves[${i}] is a pause step: write it { pause: true }`, {
          path: construct.node.path,
          hint: 'a pause step takes nothing else',
        });
      pauses.push(waves.length);
      continue;
    }
    // Anything but an object is left for the props schema to refuse, naming it.
    if (typeof step !== 'object' || step === null) {
      waves.push(step as W);
      continue;
    }
    const { perMinute: rate, ...wave } = step as W & WavePaceProps;
    if (rate !== undefined && !perMinute.safeParse(rate).success)
      throw new FleetformError(
        `Rollout: "waves[${i}].perMinute" must be a number above 0, at most ${MAX_PER_MINUTE}: ${JSON.stringify(rate)}`,
        {
          path: construct.node.path,
          hint: 'give the most machines a minute the wave writes, like 20',
        },
      );
    if (rate !== undefined) waveRates.push({ wave: waves.length, perMinute: rate });
    waves.push(wave as W);
  }
  if (steps.length > 0 && isPause(steps[steps.length - 1]))
    throw new FleetformError('Rollout: the last of the waves is a pause step: it would hold nothing', {
      path: construct.node.path,
      hint: 'put a pause step between two waves, or before the first',
    });
  return { waves, pauses, waveRates };
}

/**
 * The policy's pacing from a Rollout's props (checked already against {@link pacingPropsShape})
 * and its split steps; undefined when it has none.
 */
export function pacingOf(construct: IConstruct, props: RolloutPacingProps, steps: RolloutSteps<unknown>): RolloutPacing | undefined {
  if (props.rate && 'ramp' in props.rate && props.rate.ramp.ceiling < props.rate.ramp.start)
    throw new FleetformError('Rollout: "rate.ramp.ceiling" is below its start', {
      path: construct.node.path,
      hint: 'give a ceiling at or above the start rate',
    });
  const { pauses, waveRates } = steps;
  const pacing: RolloutPacing = {
    ...(props.rate ? { rate: rateOf(props.rate) } : {}),
    ...(waveRates.length > 0 ? { wave_rates: waveRates.map((r) => ({ wave: r.wave, per_minute: r.perMinute })) } : {}),
    ...(pauses.length > 0 ? { pauses } : {}),
    ...(props.schedule ? { schedule: scheduleOf(construct, props.schedule) } : {}),
    ...(props.lateJoiners ? { late_joiners: props.lateJoiners } : {}),
  };
  return Object.keys(pacing).length > 0 ? RolloutPacingSchema.parse(pacing) : undefined;
}
