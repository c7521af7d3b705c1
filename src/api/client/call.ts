/**
 * How the typed clients run one call: the per-call deadline, retries for safe calls and
 * the translation of every failure into a ServiceError naming the method.
 */
import type { ServiceType } from '@bufbuild/protobuf';
import { createClient, type CallOptions, type Client, type Transport } from '@connectrpc/connect';
import { isAuthenticationError } from './auth';
import { toServiceError } from './errors';
import { withRetries, type RetryClock, type RetryPolicy } from './retry';
import { underStopHook } from './stop-hook';

/** Settings shared by every call of a client. */
export interface CallSettings {
  readonly serviceHost: string;
  /** Deadline of each attempt, in milliseconds. */
  readonly timeoutMs: number;
  readonly retry: RetryPolicy;
  readonly clock: RetryClock;
  /** Strings masked in error messages (the API key). */
  readonly secrets: readonly string[];
}

/**
 * Runs one call of service S: `method` is the key in S's method table, `safe` says
 * whether repeating it cannot change the outcome (reads, guarded writes).
 */
export type Invoker<S extends ServiceType> = <T>(
  method: keyof S['methods'] & string,
  safe: boolean,
  op: (client: Client<S>, options: CallOptions) => Promise<T>,
) => Promise<T>;

/** `Service.Method` of a descriptor entry, e.g. `MLTrainingService.GetTrainingJob`. */
export function methodLabel(service: ServiceType, method: string): string {
  const short = service.typeName.slice(service.typeName.lastIndexOf('.') + 1);
  const name = service.methods[method]?.name ?? method;
  return `${short}.${name}`;
}

/** Binds the call policy to one service over `transport`. */
export function createInvoker<S extends ServiceType>(service: S, transport: Transport, settings: CallSettings): Invoker<S> {
  const client = createClient(service, transport);
  return async (method, safe, op) => {
    try {
      return await withRetries(() => underStopHook(() => op(client, { timeoutMs: settings.timeoutMs }), service.methods[method]?.name), {
        safe,
        policy: settings.retry,
        clock: settings.clock,
      });
    } catch (e) {
      const label = isAuthenticationError(e) ? 'AuthService.Authenticate' : methodLabel(service, method);
      throw toServiceError(e, {
        method: label,
        serviceHost: settings.serviceHost,
        timeoutMs: settings.timeoutMs,
        secrets: settings.secrets,
      });
    }
  };
}
