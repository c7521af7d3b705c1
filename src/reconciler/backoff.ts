/**
 * What a reconciler does while its cycles fail: it waits longer after each failure (the
 * poll interval, doubled each time, up to a ceiling), starts again at once on a new commit,
 * and says a failure once per cause and commit: a failure of the same cause as the last one,
 * on the same commit, is logged but not announced again.
 */
import { FleetformError } from '../domain/errors';

/** The step of a cycle that failed: getting the code, installing its dependencies, running the app, taking the lease, or planning and applying. */
export type FailureStage = 'fetch' | 'install' | 'synth' | 'lease' | 'plan';

/** The default ceiling of the wait between failing cycles. */
export const DEFAULT_BACKOFF_MAX_MS = 600_000;

/** The failures in a row, as the status and /healthz show them. */
export interface FailureStreak {
  readonly stage: FailureStage;
  /** What failed, stable across retries of the same failure (the stage and the error's kind). */
  readonly cause: string;
  /** The error's text (redacted). */
  readonly error: string;
  /** The commit (or the branch's head, when the commit could not be fetched) it failed on. */
  readonly commit: string;
  readonly failures: number;
  /** When the first failure of the streak happened and when the next cycle is due, epoch ms. */
  readonly since: number;
  readonly retryAt: number;
}

/** The wait after the `failures`-th failure in a row: `baseMs` doubled each time, at most `maxMs`. */
export function backoffMs(failures: number, baseMs: number, maxMs: number): number {
  const doubled = Math.max(1, baseMs) * 2 ** Math.min(40, Math.max(0, failures - 1));
  return Math.min(maxMs, doubled);
}

/** The kind of an error, as a failure's cause: its class and, for a service error, its code. */
export function causeOf(stage: FailureStage, err: unknown): string {
  const name = err instanceof Error ? err.name : 'error';
  const code = err instanceof Error && 'code' in err && typeof err.code === 'string' ? ` ${err.code}` : '';
  const where = err instanceof FleetformError && err.path ? ` at ${err.path}` : '';
  return `${stage}: ${name}${code}${where}`;
}

/**
 * The streak after one more failure, and whether it is to be announced: a new commit or a
 * new cause starts the count again and is announced; the same cause on the same commit is not.
 */
export function nextStreak(
  previous: FailureStreak | undefined,
  failure: { readonly stage: FailureStage; readonly cause: string; readonly error: string; readonly commit: string; readonly now: number },
  wait: { readonly baseMs: number; readonly maxMs: number },
): { streak: FailureStreak; announce: boolean } {
  const sameCommit = previous !== undefined && previous.commit === failure.commit;
  const failures = sameCommit ? previous.failures + 1 : 1;
  const announce = !(sameCommit && previous.cause === failure.cause);
  return {
    streak: {
      stage: failure.stage,
      cause: failure.cause,
      error: failure.error,
      commit: failure.commit,
      failures,
      since: sameCommit ? previous.since : failure.now,
      retryAt: failure.now + backoffMs(failures, wait.baseMs, wait.maxMs),
    },
    announce,
  };
}
