/**
 * Retry policy: exponential backoff with full jitter, only for calls that are safe to
 * repeat (reads, and writes guarded by `last_known_update`), only on transient codes.
 */
import { Code, ConnectError } from '@connectrpc/connect';

/** How often and how long to wait between attempts. */
export interface RetryPolicy {
  /** Attempts in all, the first included (1 = never retry). */
  readonly maxAttempts: number;
  /** Upper bound of the first wait; doubles per attempt. */
  readonly baseDelayMs: number;
  /** Upper bound of any wait. */
  readonly maxDelayMs: number;
}

/** 4 attempts, waits drawn from [0, 100 ms], [0, 200 ms], [0, 400 ms]. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 2000 };

/** Time and randomness, injectable for tests. */
export interface RetryClock {
  sleep(ms: number): Promise<void>;
  /** Uniform in [0, 1). */
  random(): number;
}

/** The real clock: timers and Math.random. */
export const systemClock: RetryClock = {
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: () => Math.random(),
};

/** Codes after which a safe call is repeated. */
export const RETRYABLE_CODES: ReadonlySet<Code> = new Set([Code.Unavailable, Code.DeadlineExceeded, Code.ResourceExhausted]);

/** Whether an error is transient (UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED). */
export function isRetryable(err: unknown): boolean {
  return err instanceof ConnectError && RETRYABLE_CODES.has(err.code);
}

/**
 * The wait before attempt `attempt + 1` (attempt counts from 1): uniform in
 * [0, min(maxDelayMs, baseDelayMs * 2^(attempt-1))] ("full jitter").
 */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(random() * cap);
}

/**
 * Runs `op`; when `safe` and it fails with a retryable error, waits and runs it again,
 * up to `policy.maxAttempts` attempts. Unsafe calls run exactly once.
 */
export async function withRetries<T>(
  op: (attempt: number) => Promise<T>,
  options: { safe: boolean; policy?: RetryPolicy; clock?: RetryClock },
): Promise<T> {
  const policy = options.policy ?? DEFAULT_RETRY_POLICY;
  const clock = options.clock ?? systemClock;
  const attempts = options.safe ? Math.max(1, policy.maxAttempts) : 1;
  for (let attempt = 1; ; attempt++) {
    try {
      return await op(attempt);
    } catch (err) {
      if (attempt >= attempts || !isRetryable(err)) throw err;
      await clock.sleep(backoffDelay(attempt, policy, clock.random));
    }
  }
}
