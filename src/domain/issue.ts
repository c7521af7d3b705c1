export { childPath } from './json-path';
/** One problem found in user input: an error blocks, a warning is reported and tolerated. */
export interface Issue {
  severity: 'error' | 'warning';
  /** Stable machine-readable kind, e.g. `model-module-mismatch`. */
  code: string;
  /** JSON path of the offending value, e.g. `components[2].model`; empty for the whole document. */
  path: string;
  message: string;
  hint?: string;
  /**
   * For a warning (what fails one item, not the whole config): `certain` when the machine
   * will fail that item whatever it runs, `possible` (or absent) when it only may.
   */
  certainty?: Certainty;
}

/** How sure a finding is that the machine fails the item it names. */
export type Certainty = 'certain' | 'possible';

/** Every problem of one validation run, errors and warnings apart. */
export interface ValidationResult {
  errors: Issue[];
  warnings: Issue[];
}

/** Builds an error issue. */
export function errorIssue(code: string, path: string, message: string, hint?: string): Issue {
  return hint === undefined ? { severity: 'error', code, path, message } : { severity: 'error', code, path, message, hint };
}

/** Builds a warning issue. */
export function warningIssue(code: string, path: string, message: string, hint?: string): Issue {
  return hint === undefined ? { severity: 'warning', code, path, message } : { severity: 'warning', code, path, message, hint };
}

/** Builds a warning of what the machine will certainly fail (that item alone, not the whole config). */
export function certainIssue(code: string, path: string, message: string, hint?: string): Issue {
  return { ...warningIssue(code, path, message, hint), certainty: 'certain' };
}

/** Splits issues into errors and warnings, keeping their order. */
export function toValidationResult(issues: readonly Issue[]): ValidationResult {
  return {
    errors: issues.filter((i) => i.severity === 'error'),
    warnings: issues.filter((i) => i.severity === 'warning'),
  };
}

/** The result with every path under `prefix`. */
export function withPathPrefix(result: ValidationResult, prefix: string): ValidationResult {
  const fix = (i: Issue): Issue => ({ ...i, path: joinPath(prefix, i.path) });
  return { errors: result.errors.map(fix), warnings: result.warnings.map(fix) };
}

/** `path: message` plus an indented hint line, for terminals. */
export function formatIssue(issue: Issue): string {
  const head = issue.path ? `${issue.path}: ${issue.message}` : issue.message;
  return issue.hint ? `${head}\n  hint: ${issue.hint}` : head;
}

/** Joins a prefix and a path (`prefix.path`, or `prefix[0]...` when the path starts with an index). */
export function joinPath(prefix: string | undefined, path: string): string {
  if (!prefix) return path;
  if (!path) return prefix;
  return path.startsWith('[') ? `${prefix}${path}` : `${prefix}.${path}`;
}
