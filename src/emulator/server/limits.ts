/**
 * The emulator's protections against hostile or broken clients, as a production gRPC server
 * has them. Every limit can be set by option, by `fleetform emulator serve` flag or by
 * environment variable (tests use short timeouts).
 */
import { InputError } from '../../domain/errors';

export interface ServerLimits {
  /** Largest request message, compressed and decompressed (bytes). */
  readonly maxMessageBytes: number;
  /** A connection whose first request headers are not complete by then is closed (ms). */
  readonly headerTimeoutMs: number;
  /** A connection without traffic for this long is closed (ms). */
  readonly idleTimeoutMs: number;
  /** Concurrent streams one HTTP/2 connection may open. */
  readonly maxConcurrentStreams: number;
}

export const DEFAULT_LIMITS: ServerLimits = {
  maxMessageBytes: 4 * 1024 * 1024,
  headerTimeoutMs: 30_000,
  idleTimeoutMs: 120_000,
  maxConcurrentStreams: 100,
};

/** Environment variable of each limit. */
export const LIMIT_ENV: Readonly<Record<keyof ServerLimits, string>> = {
  maxMessageBytes: 'FLEETFORM_EMULATOR_MAX_MESSAGE_BYTES',
  headerTimeoutMs: 'FLEETFORM_EMULATOR_HEADER_TIMEOUT_MS',
  idleTimeoutMs: 'FLEETFORM_EMULATOR_IDLE_TIMEOUT_MS',
  maxConcurrentStreams: 'FLEETFORM_EMULATOR_MAX_CONCURRENT_STREAMS',
};

/** A positive whole number from a flag or variable; `where` names it in the error. */
export function parseLimit(text: string, where: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < 1) {
    throw new InputError(`must be a positive whole number, not ${JSON.stringify(text)}`, {
      path: where,
      hint: `e.g. ${where}=4194304 for a 4 MiB message limit, or 30000 for 30 s`,
    });
  }
  return n;
}

/** Limits from the environment over the defaults, then `overrides` over both. */
export function resolveLimits(env: NodeJS.ProcessEnv, overrides: Partial<ServerLimits> = {}): ServerLimits {
  const fromEnv: Partial<Record<keyof ServerLimits, number>> = {};
  for (const key of Object.keys(LIMIT_ENV) as (keyof ServerLimits)[]) {
    const text = env[LIMIT_ENV[key]];
    if (text !== undefined && text !== '') fromEnv[key] = parseLimit(text, LIMIT_ENV[key]);
  }
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) as Partial<ServerLimits>;
  return { ...DEFAULT_LIMITS, ...fromEnv, ...defined };
}
