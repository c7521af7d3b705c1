/**
 * One problem of a fleetform app, found at synth: the construct it belongs to and the
 * field of that construct (in the construct's own property names, e.g. `dependsOn[0]`,
 * `attributes.board`, `sensitiveEnv.API_KEY`; empty for the construct as a whole).
 * A plain JSON object, so it crosses process boundaries unchanged.
 */
export interface FleetIssue {
  readonly severity: 'error' | 'warning';
  /** Stable machine-readable kind, e.g. `model-module-mismatch`. */
  readonly code: string;
  /** Construct path, e.g. `warehouse/picker-1/ultrasonic`. */
  readonly constructPath: string;
  readonly field: string;
  readonly message: string;
  readonly hint?: string;
}

/** `field: message`, plus the hint in parentheses: the text of a CDKTF validation message (cdktf prefixes the path). */
export function formatIssueForConstruct(issue: FleetIssue): string {
  const head = issue.field ? `${issue.field}: ${issue.message}` : issue.message;
  return issue.hint ? `${head} (hint: ${issue.hint})` : head;
}

/** `path: field: message` and an indented hint line, for terminals. */
export function formatFleetIssue(issue: FleetIssue): string {
  const where = issue.field ? `${issue.constructPath}: ${issue.field}` : issue.constructPath;
  const head = `${where}: ${issue.message}`;
  return issue.hint ? `${head}\n  hint: ${issue.hint}` : head;
}
