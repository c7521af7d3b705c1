/** Helpers for the canonical status errors the emulator answers with. */
import { Code, ConnectError } from '@connectrpc/connect';
import type { Issue } from '../../domain';

export const notFound = (message: string): ConnectError => new ConnectError(message, Code.NotFound);
export const alreadyExists = (message: string): ConnectError => new ConnectError(message, Code.AlreadyExists);
export const permissionDenied = (message: string): ConnectError => new ConnectError(message, Code.PermissionDenied);
export const failedPrecondition = (message: string): ConnectError => new ConnectError(message, Code.FailedPrecondition);
export const invalidArgument = (message: string): ConnectError => new ConnectError(message, Code.InvalidArgument);
export const unauthenticated = (message: string): ConnectError => new ConnectError(message, Code.Unauthenticated);

/** InvalidArgument listing every error issue as `path: message`. */
export function invalidIssues(issues: readonly Pick<Issue, 'path' | 'message'>[]): ConnectError {
  return invalidArgument(issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; '));
}

/** Fails with InvalidArgument when a required string field is empty. */
export function required(value: string, field: string): string {
  if (value.trim() === '') throw invalidArgument(`${field} is required`);
  return value;
}
export const unavailable = (message: string): ConnectError => new ConnectError(message, Code.Unavailable);
