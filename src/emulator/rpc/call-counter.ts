/**
 * Counts the calls each method received (failed ones too), so a test
 * can compare what a run did with what its plan said. Held in memory only.
 */
import type { Interceptor } from '@connectrpc/connect';

export class CallCounter {
  private readonly counts = new Map<string, number>();

  record(methodName: string): void {
    this.counts.set(methodName, (this.counts.get(methodName) ?? 0) + 1);
  }

  /** Calls per method name (e.g. `NewRobot`) since the start or the last `reset`. */
  snapshot(): Readonly<Record<string, number>> {
    return Object.fromEntries([...this.counts.entries()].sort(([a], [b]) => a.localeCompare(b)));
  }

  reset(): void {
    this.counts.clear();
  }
}

/** Records every call before anything else can refuse it; the control service is not counted. */
export function callCounterInterceptor(counter: CallCounter, exemptService: string): Interceptor {
  return (next) => (req) => {
    if (req.service.typeName !== exemptService) counter.record(req.method.name);
    return next(req);
  };
}
