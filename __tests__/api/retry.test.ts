import { Code, ConnectError } from '@connectrpc/connect';
import { backoffDelay, DEFAULT_RETRY_POLICY, isRetryable, withRetries, type RetryClock } from '../../src/api/client/retry';

/** A clock that records the waits instead of sleeping; random() is fixed. */
function recordingClock(randomValue: number): RetryClock & { waits: number[] } {
  const waits: number[] = [];
  return { waits, sleep: async (ms) => void waits.push(ms), random: () => randomValue };
}

/** An operation failing with `codes` in turn, then answering 'ok'. */
function failing(codes: Code[]): { op: () => Promise<string>; calls: () => number } {
  let n = 0;
  return {
    op: async () => {
      const code = codes[n++];
      if (code !== undefined) throw new ConnectError('boom', code);
      return 'ok';
    },
    calls: () => n,
  };
}

describe('retry policy', () => {
  test('transient codes are retryable, others are not', () => {
    expect(isRetryable(new ConnectError('x', Code.Unavailable))).toBe(true);
    expect(isRetryable(new ConnectError('x', Code.DeadlineExceeded))).toBe(true);
    expect(isRetryable(new ConnectError('x', Code.ResourceExhausted))).toBe(true);
    for (const c of [
      Code.NotFound,
      Code.AlreadyExists,
      Code.PermissionDenied,
      Code.FailedPrecondition,
      Code.Unauthenticated,
      Code.Internal,
    ]) {
      expect(isRetryable(new ConnectError('x', c))).toBe(false);
    }
    expect(isRetryable(new Error('plain'))).toBe(false);
  });

  test('backoff doubles per attempt, is jittered and capped', () => {
    const p = { maxAttempts: 10, baseDelayMs: 100, maxDelayMs: 1000 };
    expect([1, 2, 3, 4, 5].map((a) => backoffDelay(a, p, () => 0.999999))).toEqual([99, 199, 399, 799, 999]);
    expect(backoffDelay(3, p, () => 0)).toBe(0);
    expect(backoffDelay(3, p, () => 0.5)).toBe(200);
  });

  test('a safe call is retried on UNAVAILABLE until it succeeds, waiting the backoff', async () => {
    const clock = recordingClock(0.5);
    const f = failing([Code.Unavailable, Code.DeadlineExceeded, Code.ResourceExhausted]);
    await expect(withRetries(f.op, { safe: true, clock })).resolves.toBe('ok');
    expect(f.calls()).toBe(4);
    expect(clock.waits).toEqual([50, 100, 200]);
  });

  test('a safe call gives up after maxAttempts with the last error', async () => {
    const clock = recordingClock(0.5);
    const f = failing([Code.Unavailable, Code.Unavailable, Code.Unavailable, Code.Unavailable, Code.Unavailable]);
    await expect(withRetries(f.op, { safe: true, clock })).rejects.toMatchObject({ code: Code.Unavailable });
    expect(f.calls()).toBe(DEFAULT_RETRY_POLICY.maxAttempts);
    expect(clock.waits).toHaveLength(DEFAULT_RETRY_POLICY.maxAttempts - 1);
  });

  test('an unsafe call runs exactly once', async () => {
    const clock = recordingClock(0.5);
    const f = failing([Code.Unavailable]);
    await expect(withRetries(f.op, { safe: false, clock })).rejects.toMatchObject({ code: Code.Unavailable });
    expect(f.calls()).toBe(1);
    expect(clock.waits).toEqual([]);
  });

  test('a safe call is not retried on a permanent error', async () => {
    const clock = recordingClock(0.5);
    const f = failing([Code.NotFound]);
    await expect(withRetries(f.op, { safe: true, clock })).rejects.toMatchObject({ code: Code.NotFound });
    expect(f.calls()).toBe(1);
  });
});
