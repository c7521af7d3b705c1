/** The policy each stack is reconciled by: its own in code, else the reconciler's flags. */
import { createHash } from 'node:crypto';
import { type DesiredStack, type ResourceChange, stackWindows } from '../engine';
import type { ApplyPolicy, DriftPolicy } from './events';
import type { SyncWindow } from '../domain/sync-windows';

export interface Defaults {
  readonly apply: ApplyPolicy;
  readonly drift: DriftPolicy;
  readonly windows: readonly SyncWindow[];
}

export interface StackPolicy {
  readonly apply: ApplyPolicy;
  readonly drift: DriftPolicy;
  /** The reconciler's windows and the stack's own: all of them hold. */
  readonly windows: readonly SyncWindow[];
}

export function stackPolicy(stack: DesiredStack, defaults: Defaults): StackPolicy {
  const own = stack.reconcile;
  return {
    apply: own?.apply ?? defaults.apply,
    drift: own?.drift ?? defaults.drift,
    windows: [...defaults.windows, ...stackWindows(stack)],
  };
}

/** Whether a change repairs drift (the object was changed or removed outside fleetform). */
export function isDrift(change: ResourceChange): boolean {
  return change.drift.length > 0 || change.vanished;
}

/** What identifies a set of changes for an approval: the same changes get the same text. */
export function changesFingerprint(changes: readonly ResourceChange[]): string {
  const hash = createHash('sha256');
  for (const c of [...changes].sort((a, b) => a.address.localeCompare(b.address)))
    hash.update(JSON.stringify([c.address, c.action, c.after]));
  return hash.digest('hex').slice(0, 16);
}
