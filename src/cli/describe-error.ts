import { FleetformError } from '../domain/errors';
import { processRedactor } from '../engine/redactor';

/** One readable line (and hint) for any error, never a stack trace nor a secret the process knows. */
export function describeError(error: unknown): string {
  const text =
    error instanceof FleetformError ? error.format().replace(/\n/g, '\n    ') : error instanceof Error ? error.message : String(error);
  return processRedactor.redact(text);
}
