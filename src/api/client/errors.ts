/**
 * The one error type of the service client: the service's canonical status code, the
 * method that failed and the service's message, with a hint for the codes users meet.
 */
import type { Code, ConnectError } from '@connectrpc/connect';
import { FleetformError } from '../../domain/errors';

/** gRPC canonical status code names, indexed by their numeric value. */
export const STATUS_CODE_NAMES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
] as const;

/** A canonical status code name other than OK. */
export type ServiceErrorCode = Exclude<(typeof STATUS_CODE_NAMES)[number], 'OK'>;

/** The canonical name of a numeric status code (connect-es `Code`). */
export function statusCodeName(code: number): ServiceErrorCode {
  const name = STATUS_CODE_NAMES[code];
  return name === undefined || name === 'OK' ? 'UNKNOWN' : name;
}

/** The numeric status code (connect-es `Code`) of a canonical name. */
export function statusCodeOf(name: ServiceErrorCode): Code {
  return STATUS_CODE_NAMES.indexOf(name) as Code;
}

/** A call to the service failed. `method` is `Service.Method`, e.g. `MLTrainingService.GetTrainingJob`. */
export class ServiceError extends FleetformError {
  /** Canonical status code name, e.g. `NOT_FOUND`. */
  readonly code: ServiceErrorCode;
  /** The failed method as `Service.Method`. */
  readonly method: string;
  /** The service's own message, without the code and method. */
  readonly detail: string;

  constructor(code: ServiceErrorCode, method: string, detail: string, options: { path?: string; hint?: string } = {}) {
    super(`${method} failed: ${code}${detail ? `: ${detail}` : ''}`, options);
    this.code = code;
    this.method = method;
    this.detail = detail;
  }
}

/** Whether an error is the service saying the object asked for does not exist. */
export function isNotFound(err: unknown): err is ServiceError {
  return err instanceof ServiceError && err.code === 'NOT_FOUND';
}

/** Runs a call; the service answering that the object does not exist gives undefined. */
export async function unlessNotFound<T>(call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call();
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** What {@link toServiceError} knows about the call besides the error. */
export interface ErrorContext {
  /** `Service.Method` of the call. */
  readonly method: string;
  /** Address of the service, for the UNAVAILABLE hint. */
  readonly serviceHost?: string;
  /** The per-call deadline in milliseconds, for the DEADLINE_EXCEEDED hint. */
  readonly timeoutMs?: number;
  /** Strings that must never appear in a message (the API key, tokens). */
  readonly secrets?: readonly string[];
}

/** @connectrpc/connect, loaded when the first error is read: a start that reads none (the Terraform provider's) spares it. */
function connect(): typeof import('@connectrpc/connect') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, synchronously
  return require('@connectrpc/connect') as typeof import('@connectrpc/connect');
}

/** `err` when it is an error of the connect client (with its status code), else undefined. */
export function connectErrorOf(err: unknown): ConnectError | undefined {
  return err instanceof connect().ConnectError ? err : undefined;
}

/**
 * Turns whatever a call threw into a ServiceError. Secrets are masked in the service's
 * message, and the original error is not kept as `cause` (it may carry request data).
 */
export function toServiceError(err: unknown, ctx: ErrorContext): ServiceError {
  if (err instanceof ServiceError) return err;
  const ce = connect().ConnectError.from(err);
  const code = statusCodeName(ce.code);
  const detail = redact(ce.rawMessage, ctx.secrets ?? []);
  return new ServiceError(code, ctx.method, detail, { hint: hintFor(code, ctx) });
}

/** Replaces every occurrence of each secret (of 4 or more characters) with `***`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join('***');
  return out;
}

const KEY_HINT = 'check FLEETFORM_API_KEY and FLEETFORM_API_KEY_ID (the key and its id)';

/** The hint for a code in the context of a method, if there is a useful one. */
export function hintFor(code: ServiceErrorCode, ctx: Pick<ErrorContext, 'method' | 'serviceHost' | 'timeoutMs'>): string | undefined {
  const m = ctx.method.split('.').pop() ?? ctx.method;
  switch (code) {
    case 'PERMISSION_DENIED':
      return m === 'Authenticate'
        ? `the service rejected the API key: ${KEY_HINT}`
        : 'this call needs an API key with organization owner permission: use an organization owner key';
    case 'UNAUTHENTICATED':
      return `the service did not accept the session token: ${KEY_HINT}`;
    case 'UNAVAILABLE':
      return `cannot reach the service${ctx.serviceHost ? ` at ${ctx.serviceHost}` : ''}: check FLEETFORM_ENDPOINT and that the service is running`;
    case 'DEADLINE_EXCEEDED':
      return `no answer within ${ctx.timeoutMs !== undefined ? `${ctx.timeoutMs} ms` : 'the deadline'}: raise the client's timeoutMs or try again`;
    case 'RESOURCE_EXHAUSTED':
      return 'the service is rate limiting: lower the parallelism or try again later';
    case 'NOT_FOUND':
      return 'check the id; the object may have been deleted outside fleetform';
    case 'ALREADY_EXISTS':
      return m === 'SubmitTrainingJob' || m === 'SubmitCustomTrainingJob'
        ? 'model versions must be unique per model: choose a new model version'
        : undefined;
    case 'FAILED_PRECONDITION':
    case 'ABORTED':
      if (m === 'CancelTrainingJob') return 'only PENDING or IN_PROGRESS jobs can be canceled';
      if (m === 'DeleteCompletedTrainingJob') return 'only completed jobs (COMPLETED, FAILED, CANCELED) can be deleted: cancel it first';
      if (m === 'UpdateRobotPart') return 'the part changed since it was read: refresh and plan again';
      return undefined;
    case 'UNIMPLEMENTED':
      return 'the service does not offer this method: check that FLEETFORM_ENDPOINT points at the right service';
    default:
      return undefined;
  }
}
