import { FleetformError, errorMessage } from '../domain/errors';

/** A failure as one line for a page or the event log: the message, and the hint when there is one. */
export function describeFailure(err: unknown): string {
  if (err instanceof FleetformError) return err.hint ? `${err.message} (${err.hint})` : err.message;
  return errorMessage(err);
}
