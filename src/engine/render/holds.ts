/** What the windows would hold of a plan, as its renderers say it. */
import type { Plan, ResourceChange, WindowHold } from '../plan-model';

/** One hold as a line, e.g. `held: location south's window is closed until 2026-11-28T17:00:00.000Z (inside the deny window deny:0 9 * * *:8h)`. */
export function holdText(h: WindowHold): string {
  const whose = h.scope === 'stack' ? `stack ${h.stack}'s windows are` : `location ${h.location ?? '?'}'s window is`;
  const closed = `${whose} closed${h.until ? ` until ${h.until}` : ''} (${h.reason})`;
  const why = h.rollout
    ? `its rollout ${h.rollout.name} pauses before wave ${h.rollout.wave}${h.rollout.machine === h.address ? '' : ` (at ${h.rollout.machine})`}: `
    : h.dependsOn
      ? `it depends on ${h.dependsOn}: `
      : '';
  return `held: ${why}${closed}`;
}

/** The plan's holds by `stack|address`. */
export function holdsByAddress(plan: Plan): ReadonlyMap<string, WindowHold> {
  return new Map((plan.windows?.holds ?? []).map((h) => [`${h.stack}|${h.address}`, h]));
}

/** The hold of a change, if the windows hold it. */
export function holdOfChange(holds: ReadonlyMap<string, WindowHold>, c: ResourceChange): WindowHold | undefined {
  return holds.get(`${c.stack}|${c.address}`);
}

/** Holds of machines a rollout's wave reaches that are no change of the plan (a fragment's rollout pins them). */
export function waveOnlyHolds(plan: Plan): WindowHold[] {
  const changed = new Set(plan.changes.filter((c) => c.action !== 'no-op').map((c) => `${c.stack}|${c.address}`));
  return (plan.windows?.holds ?? []).filter((h) => !changed.has(`${h.stack}|${h.address}`));
}

/**
 * The summary of the holds, e.g. `Windows would hold 2 of the 5 change(s) if applied now (checked at ...).`;
 * undefined when the plan was not checked against windows, or has nothing to hold.
 */
export function holdsSummary(plan: Plan): string | undefined {
  if (!plan.windows) return undefined;
  const total = plan.changes.filter((c) => c.action !== 'no-op').length;
  const held = heldChanges(plan);
  const machines = waveOnlyHolds(plan).length;
  if (total === 0 && machines === 0) return undefined;
  const waves = machines > 0 ? `, and ${machines} machine(s) of a fragment's rollout` : '';
  return `Windows would hold ${held} of the ${total} change(s)${waves} if applied now (checked at ${plan.windows.checkedAt}).`;
}

/** How many of the plan's changes the windows hold (a fragment's wave machines that are no change of their own not counted). */
export function heldChanges(plan: Plan): number {
  const held = holdsByAddress(plan);
  return plan.changes.filter((c) => c.action !== 'no-op' && held.has(`${c.stack}|${c.address}`)).length;
}
