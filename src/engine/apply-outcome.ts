/** What writing a set of changes did: how many were applied, which failed and why, which were skipped. */
export interface ApplyOutcome {
  readonly applied: number;
  readonly failed: ReadonlyArray<{ address: string; error: unknown }>;
  readonly skipped: readonly string[];
  /** The revision each create or update made, by address, where the kind reports one. */
  readonly revisions?: ReadonlyMap<string, string>;
}
