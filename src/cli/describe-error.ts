import { FleetformError } from '../domain/errors';

/** One readable line (and hint) for any error, never a stack trace. */
export function describeError(error: unknown): string {
  if (error instanceof FleetformError) return error.format().replace(/\n/g, '\n    ');
  if (error instanceof Error) return error.message;
  return String(error);
}
