/**
 * Injected faults: the next N calls of a method fail with a chosen status. Held in memory
 * only (a restart clears them). The control service itself is never faulted.
 */
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';

export interface Fault {
  readonly code: Code;
  readonly message: string;
  remaining: number;
}

export class FaultTable {
  private readonly faults = new Map<string, Fault[]>();

  /** `method` is `<package>.<Service>/<Method>` or `<Method>`. */
  add(method: string, code: Code, message: string, count: number): void {
    const list = this.faults.get(method) ?? [];
    list.push({ code, message, remaining: Math.max(1, count) });
    this.faults.set(method, list);
  }

  /** Removes every fault; returns how many were pending. */
  clear(): number {
    const n = [...this.faults.values()].reduce((sum, l) => sum + l.length, 0);
    this.faults.clear();
    return n;
  }

  /** The fault to raise for a call, consuming one use of it. */
  take(typeName: string, methodName: string): Fault | undefined {
    for (const key of [`${typeName}/${methodName}`, methodName]) {
      const list = this.faults.get(key);
      const fault = list?.[0];
      if (!list || !fault) continue;
      fault.remaining -= 1;
      if (fault.remaining <= 0) list.shift();
      if (list.length === 0) this.faults.delete(key);
      return fault;
    }
    return undefined;
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
