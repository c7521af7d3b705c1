import { FleetformError } from './errors';

/**
 * What went wrong while resolving a machine's fragments:
 * - `bad-import`: a `fragments` entry is not an id or an object with a string `id`;
 * - `duplicate-import`: one fragment imported twice with the same prefix;
 * - `unknown-fragment` / `unknown-version`: no such fragment, or no such revision or tag of it;
 * - `nesting-limit`: a fragment more than five imports away from the machine;
 * - `cycle`: a fragment that imports itself, directly or through others;
 * - `unset-variable`: a `$variable` placeholder the import gives no value for;
 * - `unknown-variable`: a value the import gives for a variable the fragment never reads;
 * - `duplicate-name`: two different entries of one section with the same name;
 * - `bad-mod`: a `fragment_mods` entry or mod that is not of the accepted shape;
 * - `mod-failed`: a mod that names nothing (no such fragment import, entry or field).
 */
export type FragmentErrorCode =
  | 'bad-import'
  | 'duplicate-import'
  | 'unknown-fragment'
  | 'unknown-version'
  | 'nesting-limit'
  | 'cycle'
  | 'unset-variable'
  | 'unknown-variable'
  | 'duplicate-name'
  | 'bad-mod'
  | 'mod-failed';

/**
 * A machine config whose fragments cannot be resolved as written: names the machine, the
 * fragment (when one is concerned) and the field, as a path in the machine's config
 * (`fragments[0].variables.pin`) or in the fragment's (`fragment:<id>.components.cam`).
 */
export class FragmentResolutionError extends FleetformError {
  readonly code: FragmentErrorCode;
  readonly machine: string;
  readonly fragmentId: string | undefined;
  readonly field: string;
  /** What went wrong, without the machine and fragment the message starts with. */
  readonly detail: string;
  constructor(code: FragmentErrorCode, details: { machine: string; fragmentId?: string; field: string; message: string; hint: string }) {
    const about =
      details.fragmentId === undefined ? `machine ${details.machine}` : `machine ${details.machine}, fragment ${details.fragmentId}`;
    super(`${about}: ${details.message}`, { path: details.field, hint: details.hint });
    this.code = code;
    this.machine = details.machine;
    this.fragmentId = details.fragmentId;
    this.field = details.field;
    this.detail = details.message;
  }
}

/**
 * Imports the service keeps as written and reports as a fragment error on the machine, which
 * runs its own entries and its other imports: a fragment (or a revision or tag of it) the
 * machine's organization cannot read, because none exists or it is another organization's
 * private fragment. The fix may be made on the service (creating the fragment, sharing it,
 * tagging a revision), so what the machine lacks is a warning, never a refusal.
 */
const IMPORTS_LEFT_OUT: ReadonlySet<FragmentErrorCode> = new Set(['unknown-fragment', 'unknown-version']);

/** Whether the machine runs without this import (and the rest of its config as written). */
export function leavesImportOut(error: FragmentResolutionError): boolean {
  return IMPORTS_LEFT_OUT.has(error.code);
}

/** What a machine runs without when an import is left out, and the fixes: the text of its warning. */
export function importLeftOutWarning(error: FragmentResolutionError): string {
  const fix =
    error.code === 'unknown-version'
      ? 'import an existing revision or tag'
      : 'create the fragment, share it as public or unlisted, or remove the import';
  return (
    `${error.message}; the service keeps the import and reports a fragment error on the machine, which runs without ` +
    `anything the fragment would bring (its components, services, modules and packages); ${fix}`
  );
}
