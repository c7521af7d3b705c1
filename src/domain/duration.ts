/**
 * Go duration text (`4m0s`, `7m15s`, `1h2m3.5s`, `300ms`, `1.5us`), as the machine
 * server reads its timeout variables. Values are milliseconds (fractions allowed).
 */

import { InputError } from './errors';

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3, // U+00B5 micro sign
  μs: 1e-3, // U+03BC Greek mu
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const WHOLE = /^[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/;
const PART = /(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g;

/** Parses Go duration text into milliseconds; undefined when it is not a Go duration. `0` alone is valid. */
export function parseGoDuration(text: string): number | undefined {
  if (text === '0' || text === '+0' || text === '-0') return 0;
  if (!WHOLE.test(text)) return undefined;
  const sign = text.startsWith('-') ? -1 : 1;
  let ms = 0;
  for (const m of text.matchAll(PART)) {
    ms += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
  }
  // Avoid floating noise from unit products (e.g. 3.5s): round to whole nanoseconds.
  return (sign * Math.round(ms * 1e6)) / 1e6;
}

/** Options of `parseDuration`. */
export interface DurationOptions {
  /** The shortest duration allowed, in milliseconds (0 by default). */
  readonly minimumMs?: number;
  /** What the value is for, added to the hint of the error. */
  readonly hint?: string;
}

const BARE_MILLISECONDS = /^\d+(?:\.\d+)?$/;

/**
 * A duration fleetform itself reads (a flag, a variable, an emulator setting): Go duration
 * text (`300ms`, `45s`, `2m`, `1m30s`), or a bare number meaning milliseconds (`250`);
 * blanks around it are ignored. Returns whole milliseconds; throws an InputError naming
 * `where` when the text is no duration or is shorter than the minimum.
 */
export function parseDuration(text: string, where: string, options: DurationOptions = {}): number {
  const trimmed = text.trim();
  const ms = BARE_MILLISECONDS.test(trimmed) ? Number(trimmed) : parseGoDuration(trimmed);
  const minimum = options.minimumMs ?? 0;
  if (ms === undefined || ms < minimum) {
    const atLeast = minimum > 0 ? ` of at least ${formatGoDuration(minimum)},` : '';
    const forms = 'a Go duration such as 1m30s, or a bare number of milliseconds';
    throw new InputError(`must be a duration${atLeast} like 300ms, 45s or 2m, not ${JSON.stringify(text)}`, {
      path: where,
      hint: options.hint ? `${forms}; ${options.hint}` : forms,
    });
  }
  return Math.round(ms);
}

function trimFraction(n: number, digits: number): string {
  return n.toFixed(digits).replace(/\.?0+$/, '');
}

/** Formats milliseconds the way Go prints a duration: `1m0s`, `7m15s`, `1h2m3.5s`, `300ms`, `0s`. */
export function formatGoDuration(ms: number): string {
  const ns = Math.round(ms * 1e6);
  if (ns === 0) return '0s';
  const sign = ns < 0 ? '-' : '';
  const abs = Math.abs(ns);
  if (abs < 1000) return `${sign}${abs}ns`;
  if (abs < 1e6) return `${sign}${trimFraction(abs / 1e3, 3)}µs`;
  if (abs < 1e9) return `${sign}${trimFraction(abs / 1e6, 6)}ms`;
  const hours = Math.floor(abs / 3.6e12);
  const minutes = Math.floor((abs % 3.6e12) / 6e10);
  const seconds = (abs % 6e10) / 1e9;
  const s = `${trimFraction(seconds, 9)}s`;
  if (hours > 0) return `${sign}${hours}h${minutes}m${s}`;
  if (minutes > 0) return `${sign}${minutes}m${s}`;
  return `${sign}${s}`;
}

/** Name of the variable overriding how long a resource may take to configure or reconfigure. */
export const RESOURCE_CONFIGURATION_TIMEOUT_ENV = 'VIAM_RESOURCE_CONFIGURATION_TIMEOUT';
/** Name of the variable overriding how long a module may take to start. */
export const MODULE_STARTUP_TIMEOUT_ENV = 'VIAM_MODULE_STARTUP_TIMEOUT';
/** Default resource configuration timeout: one minute. */
export const DEFAULT_RESOURCE_CONFIGURATION_TIMEOUT_MS = 60_000;
/** Default module startup timeout (5 minutes). */
export const DEFAULT_MODULE_STARTUP_TIMEOUT_MS = 300_000;

/** An effective timeout and, when the configured text could not be used, why. */
export interface TimeoutSetting {
  ms: number;
  warning?: string;
}

/**
 * Reads a timeout variable: unset or empty means the default; text that is not a
 * positive Go duration falls back to the default with a warning.
 */
export function timeoutFromEnv(env: Readonly<Record<string, string | undefined>>, name: string, defaultMs: number): TimeoutSetting {
  const text = env[name];
  if (text === undefined || text === '') return { ms: defaultMs };
  const ms = parseGoDuration(text);
  if (ms === undefined || ms <= 0) {
    const why = ms === undefined ? 'is not a Go duration' : 'is not positive';
    return {
      ms: defaultMs,
      warning: `${name}=${JSON.stringify(text)} ${why} (like 4m0s, 7m15s, 300ms); using the default ${formatGoDuration(defaultMs)}`,
    };
  }
  return { ms };
}

/** The resource configuration timeout for a machine server environment (default 1 minute). */
export function resourceConfigurationTimeout(env: Readonly<Record<string, string | undefined>>): TimeoutSetting {
  return timeoutFromEnv(env, RESOURCE_CONFIGURATION_TIMEOUT_ENV, DEFAULT_RESOURCE_CONFIGURATION_TIMEOUT_MS);
}

/** The module startup timeout for a machine server environment (default 5 minutes). */
export function moduleStartupTimeout(env: Readonly<Record<string, string | undefined>>): TimeoutSetting {
  return timeoutFromEnv(env, MODULE_STARTUP_TIMEOUT_ENV, DEFAULT_MODULE_STARTUP_TIMEOUT_MS);
}
