/**
 * What changed between two readings, as the updates a page applies: machines one by one
 * (a fleet of thousands where one machine changed sends one row), other sections whole
 * when they changed (they are small).
 */
import { jsonEqual } from '../domain/json-value';
import { encodeFleet } from './fleet-table';
import type { DashboardSnapshot, DashboardUpdate, FleetMachine, FleetTable, PageSnapshot } from './view';

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Tables already made, by the machines they were made of (a reading is encoded once, however many pages read it). */
const encoded = new WeakMap<readonly FleetMachine[], FleetTable>();

/** A snapshot as pages read it: the machines as a compact table of what the fleet page shows. */
export function pageSnapshot(s: DashboardSnapshot): PageSnapshot {
  const { machines, ...rest } = s;
  let fleet = encoded.get(machines);
  if (!fleet) {
    fleet = encodeFleet(machines);
    encoded.set(machines, fleet);
  }
  return { ...rest, fleet };
}

/** Machines added or changed, and keys of those gone. */
export function machineChanges(
  before: readonly FleetMachine[],
  after: readonly FleetMachine[],
): { upsert: FleetMachine[]; remove: string[] } {
  const old = new Map(before.map((m) => [m.key, m]));
  const upsert = after.filter((m) => !jsonEqual(old.get(m.key), m));
  const kept = new Set(after.map((m) => m.key));
  const remove = before.filter((m) => !kept.has(m.key)).map((m) => m.key);
  return { upsert, remove };
}

/** The updates that turn a page showing `before` into one showing `after` (events are sent as they come, not here). */
export function updatesBetween(before: DashboardSnapshot, after: DashboardSnapshot): DashboardUpdate[] {
  const out: DashboardUpdate[] = [];
  const machines = machineChanges(before.machines, after.machines);
  if (machines.upsert.length > 0 || machines.remove.length > 0)
    out.push({ type: 'machines', upsert: encodeFleet(machines.upsert), remove: machines.remove });
  if (!sameJson(before.rollouts, after.rollouts)) out.push({ type: 'rollouts', rollouts: after.rollouts });
  if (!sameJson(before.drift, after.drift)) out.push({ type: 'drift', drift: after.drift });
  if (!sameJson(before.plan, after.plan) || before.planError !== after.planError) {
    out.push({ type: 'plan', ...(after.plan ? { plan: after.plan } : {}), ...(after.planError ? { planError: after.planError } : {}) });
  }
  if (!sameJson(before.cycles, after.cycles)) out.push({ type: 'cycles', cycles: after.cycles });
  out.push({ type: 'status', generatedAt: after.generatedAt, ...(after.readError ? { readError: after.readError } : {}) });
  return out;
}
