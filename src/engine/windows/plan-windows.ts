/**
 * The windows a person's `fleetform plan` and `apply` respect: a plan says what the stacks' and their
 * locations' windows would hold if it were applied now (the reconciler's own `--window`
 * flags given again with `--window`), and an apply refuses to write while they hold
 * anything, unless `--ignore-windows`. A rollout an apply runs pauses at a wave boundary
 * when a window closes during it, as under the reconciler; the next apply resumes it.
 */
import { FleetformError } from '../../domain/errors';
import { parseWindow, type SyncWindow } from '../../domain/sync-windows';
import type { DesiredStack } from '../desired/stack';
import type { Plan } from '../plan-model';
import { heldChanges, holdText, waveOnlyHolds } from '../render/holds';
import type { WaveBoundary } from '../rollout/events';
import type { State } from '../state/schema';
import { LocationWindows, waveHold } from './location-windows';
import { stackWindows } from './stack-windows';
import { windowClock, withWindowHolds } from './window-holds';

/** Windows of the command line (the reconciler's `--window` flags given again) over each stack's own. */
export function windowsOf(flags: readonly string[]): (stack: DesiredStack) => SyncWindow[] {
  const extra = flags.map((w) => parseWindow(w));
  return (stack) => [...extra, ...stackWindows(stack)];
}

/** The plan with what the windows would hold of it now. */
export function checkedAgainstWindows(
  plan: Plan,
  stacks: readonly DesiredStack[],
  states: ReadonlyMap<string, State>,
  flags: readonly string[],
): Plan {
  return withWindowHolds(plan, { stacks, states, windowsOf: windowsOf(flags), clock: windowClock(Date.now()) });
}

/** How many changes (and fragment wave machines) the windows hold of a checked plan. */
export function heldCount(plan: Plan): number {
  return heldChanges(plan) + waveOnlyHolds(plan).length;
}

/** Refuses an apply of a plan the windows hold part of, naming what they hold and the fix. */
export function refuseHeld(plan: Plan): void {
  const held = heldCount(plan);
  if (held === 0) return;
  const holds = plan.windows?.holds ?? [];
  const shown = holds.slice(0, 3).map((h) => `${h.address}: ${holdText(h)}`);
  const more = holds.length > shown.length ? `; and ${holds.length - shown.length} more` : '';
  const opens = holds.map((h) => h.until).filter((u): u is string => u !== undefined);
  const latest = opens.length === holds.length && opens.length > 0 ? [...opens].sort().at(-1) : undefined;
  throw new FleetformError(`windows hold ${held} change(s) now; nothing was changed: ${shown.join('; ')}${more}`, {
    hint: `apply again once they open${latest ? ` (by ${latest})` : ''}, or pass --ignore-windows to write them now`,
  });
}

/**
 * Asked before each wave, the first included (a rollout resumed from its journal is no change
 * of the plan): a closed stack window, or a closed location of a machine of the wave, pauses
 * the rollout there.
 */
export function windowsBoundary(
  plan: Plan,
  stacks: readonly DesiredStack[],
  states: ReadonlyMap<string, State>,
  flags: readonly string[],
): WaveBoundary {
  const own = windowsOf(flags);
  const byName = new Map(stacks.map((s) => [s.name, own(s)]));
  const locations = new LocationWindows(stacks, states, plan.changes);
  return (next) => {
    const clock = windowClock(Date.now());
    const v = clock.verdict(byName.get(next.stack) ?? []);
    if (!v.open) return v.reason ?? 'its window closed';
    return locations.any ? waveHold(locations, next.stack, next.machines, (w) => clock.verdict(w)) : undefined;
  };
}
