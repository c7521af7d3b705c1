/** A stack's own windows, from its reconcile policy; a window that does not read is reported with where it is. */
import { parseWindow, type SyncWindow } from '../../domain/sync-windows';
import type { DesiredStack } from '../desired/stack';

export function stackWindows(stack: DesiredStack): SyncWindow[] {
  return (stack.reconcile?.windows ?? []).map((w, i) => parseWindow(w, `${stack.name}#//.fleetform_reconcile.windows[${i}]`));
}
