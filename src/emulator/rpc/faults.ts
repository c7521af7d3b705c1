/**
 * Injected faults: the next N calls of a method fail with a chosen status. Held in memory
 * only (a restart clears them). The control service itself is never faulted. Every fault
 * counts the calls it failed, so a run can show that the fault it armed fired.
 */
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';

export interface Fault {
  readonly method: string;
  readonly code: Code;
  readonly message: string;
  /** Calls it was armed to fail (Infinity: every call). */
  readonly armed: number;
  /** Calls it has failed so far. */
  fired: number;
}

/** What one armed fault has done: `fired` of `armed` calls failed. */
export interface FaultReport {
  readonly method: string;
  readonly code: Code;
  readonly armed: number;
  readonly fired: number;
}

export class FaultTable {
  private faults: Fault[] = [];

  /** `method` is `<package>.<Service>/<Method>` or `<Method>`. */
  add(method: string, code: Code, message: string, count: number): void {
    this.faults.push({ method, code, message, armed: Math.max(1, count), fired: 0 });
  }

  /** Removes every fault; returns how many were still pending. */
  clear(): number {
    const pending = this.faults.filter((f) => f.fired < f.armed).length;
    this.faults = [];
    return pending;
  }

  /** The fault to raise for a call, counting it as fired. Faults on one method fire in the order they were added. */
  take(typeName: string, methodName: string): Fault | undefined {
    for (const key of [`${typeName}/${methodName}`, methodName]) {
      const fault = this.faults.find((f) => f.method === key && f.fired < f.armed);
      if (!fault) continue;
      fault.fired += 1;
      return fault;
    }
    return undefined;
  }

  /** Every fault added since the start or the last `clear`, with how often it fired. */
  report(): FaultReport[] {
    return this.faults.map(({ method, code, armed, fired }) => ({ method, code, armed, fired }));
  }
}

/** Raises injected faults before the call reaches authentication or its handler. */
export function faultInterceptor(table: FaultTable, exemptService: string): Interceptor {
  return (next) => async (req) => {
    if (req.service.typeName !== exemptService) {
      const fault = table.take(req.service.typeName, req.method.name);
      if (fault) throw new ConnectError(fault.message, fault.code);
    }
    return next(req);
  };
}
