/**
 * How long this process's event loop has been held up: a timer that should fire every
 * `periodMs` notes how late it fired, and the lateness adds up. A read that finished
 * while the loop was busy (a garbage collection, other resources' planning) took longer
 * for a reason of this process, not of the network or the service.
 */
export interface LoopStallClock {
  /** Milliseconds of stall so far. */
  stalledMs(): number;
  stop(): void;
}

export function startLoopStallClock(periodMs = 10): LoopStallClock {
  let stalled = 0;
  let expected = performance.now() + periodMs;
  const timer = setInterval(() => {
    const now = performance.now();
    stalled += Math.max(0, now - expected);
    expected = now + periodMs;
  }, periodMs);
  timer.unref();
  return {
    // The lateness of a tick still to come counts already.
    stalledMs: () => stalled + Math.max(0, performance.now() - expected),
    stop: () => clearInterval(timer),
  };
}
