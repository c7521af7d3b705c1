/**
 * The clock settings of an emulator from its options, `fleetform emulator serve` flags or
 * environment variables: the training duration (Go duration text, `300ms` to `2h`) and
 * whether the clock starts frozen.
 */
import { parseDuration } from '../../domain/duration';
import { InputError } from '../../domain/errors';

/** Default training duration: long enough to watch a job train, short enough to wait for. */
export const DEFAULT_TRAINING_DURATION_MS = 60_000;

export const TRAINING_DURATION_ENV = 'FLEETFORM_EMULATOR_TRAINING_DURATION';
export const CLOCK_ENV = 'FLEETFORM_EMULATOR_CLOCK';

/** `frozen` stops the clock at start; `running` lets a clock frozen earlier run; unset keeps what the data folder has. */
export type ClockMode = 'frozen' | 'running';

/** Whole milliseconds of a training duration; `where` names the flag or variable in the error. */
export function parseTrainingDuration(text: string, where: string): number {
  return parseDuration(text, where, { hint: 'a job is COMPLETED this long after it is submitted (PENDING for the first tenth)' });
}

export function parseClockMode(text: string, where: string): ClockMode {
  const mode = text.trim().toLowerCase();
  if (mode === 'frozen' || mode === 'running') return mode;
  throw new InputError(`must be frozen or running, not ${JSON.stringify(text)}`, {
    path: where,
    hint: 'frozen: nothing moves until `fleetform emulator clock step`; running: time passes',
  });
}

export interface ClockSettings {
  readonly trainingDurationMs: number;
  readonly clock?: ClockMode;
}

/** Options first, then the variables, then the defaults. */
export function resolveClockSettings(
  env: Readonly<Record<string, string | undefined>>,
  options: { readonly trainingDurationMs?: number; readonly clock?: ClockMode },
): ClockSettings {
  const durationText = env[TRAINING_DURATION_ENV];
  const trainingDurationMs =
    options.trainingDurationMs ??
    (durationText === undefined || durationText === ''
      ? DEFAULT_TRAINING_DURATION_MS
      : parseTrainingDuration(durationText, TRAINING_DURATION_ENV));
  if (!Number.isSafeInteger(trainingDurationMs) || trainingDurationMs < 0) {
    throw new InputError(`must be whole, non-negative milliseconds, not ${trainingDurationMs}`, { path: 'trainingDurationMs' });
  }
  const clockText = env[CLOCK_ENV];
  const clock = options.clock ?? (clockText === undefined || clockText === '' ? undefined : parseClockMode(clockText, CLOCK_ENV));
  return { trainingDurationMs, ...(clock === undefined ? {} : { clock }) };
}

/** The clock options a set of variables gives an emulator a command starts by itself. */
export function clockOptionsFromEnv(env: Readonly<Record<string, string | undefined>>): ClockSettings {
  return resolveClockSettings(env, {});
}
