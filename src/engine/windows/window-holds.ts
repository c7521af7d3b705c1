/**
 * What the windows would hold of a plan if it were applied now, by the rule the reconciler
 * applies by: a stack's closed windows hold every change of the stack; a location's hold its
 * machines' changes outside rollout waves and what depends on them; a rollout pauses before
 * the first wave holding a machine of a closed location, and every later wave waits with it.
 */
import { opensAt, windowVerdict, type SyncWindow, type WindowVerdict } from '../../domain/sync-windows';
import type { RolloutPlan } from '../../domain/rollout';
import type { DesiredStack } from '../desired/stack';
import type { Plan, ResourceChange, WindowHold, WindowHolds } from '../plan-model';
import type { State } from '../state/schema';
import { LocationWindows, type MachineHold } from './location-windows';

/** How windows are read at one time: whether they are open, and when they open. */
export interface WindowClock {
  readonly now: number;
  verdict(windows: readonly SyncWindow[]): WindowVerdict;
  /** When they open (epoch ms); undefined when that is not known. */
  opensAt(windows: readonly SyncWindow[]): number | undefined;
}

/** The windows as they read at `now`, without any override. */
export function windowClock(now: number): WindowClock {
  return { now, verdict: (w) => windowVerdict(w, now), opensAt: (w) => opensAt(w, now) };
}

/** Reads `read(key)` once per key (compared by identity). */
function once<K extends object, V>(read: (key: K) => V): (key: K) => V {
  const known = new WeakMap<K, { value: V }>();
  return (key) => {
    const hit = known.get(key);
    if (hit) return hit.value;
    const value = read(key);
    known.set(key, { value });
    return value;
  };
}

/** The clock reading each set of windows (the same array: a stack's, a location's) once. */
function readOnce(clock: WindowClock): WindowClock {
  return { now: clock.now, verdict: once((w) => clock.verdict(w)), opensAt: once((w) => clock.opensAt(w)) };
}

function until(clock: WindowClock, windows: readonly SyncWindow[]): { until?: string } {
  const at = clock.opensAt(windows);
  return at === undefined ? {} : { until: new Date(at).toISOString() };
}

function locationHold(stack: string, address: string, hold: MachineHold, clock: WindowClock): WindowHold {
  return { stack, address, scope: 'location', location: hold.location, reason: hold.reason, ...until(clock, hold.windows) };
}

/** Where a rollout pauses: before the first wave holding a machine of a closed location, at that machine (as the wave boundary says). */
function pauseOf(
  waves: RolloutPlan['waves'],
  holdOf: (address: string) => MachineHold | undefined,
): { wave: number; machine: string; hold: MachineHold } | undefined {
  for (const [i, w] of waves.entries())
    for (const m of w.machines) {
      const hold = holdOf(m.address);
      if (hold) return { wave: i + 1, machine: m.address, hold };
    }
  return undefined;
}

/** The machines of the stack's rollouts from the wave each pauses before on, by address. */
function rolloutHolds(stack: string, plan: Plan, locations: LocationWindows, clock: WindowClock): Map<string, WindowHold> {
  const out = new Map<string, WindowHold>();
  for (const r of (plan.rollouts ?? []).filter((x) => x.stack === stack)) {
    const pause = pauseOf(r.waves, (address) => locations.holdOf(stack, address, (w) => clock.verdict(w)));
    if (!pause) continue;
    const rollout = { name: r.policy.name, wave: pause.wave, machine: pause.machine };
    for (const w of r.waves.slice(pause.wave - 1))
      for (const m of w.machines) out.set(m.address, { ...locationHold(stack, m.address, pause.hold, clock), rollout });
  }
  return out;
}

/** A stack's changes outside rollout waves held by their machines' locations, and what depends on them, by address. */
function plainHolds(
  stack: string,
  changes: readonly ResourceChange[],
  staged: ReadonlySet<string>,
  locations: LocationWindows,
  clock: WindowClock,
): Map<string, WindowHold> {
  const out = new Map<string, WindowHold>();
  const verdict = (w: readonly SyncWindow[]): WindowVerdict => clock.verdict(w);
  const held = locations.held(stack, changes, staged, verdict);
  for (const c of changes) {
    const own = held.addresses.has(c.address) && !staged.has(c.address) ? locations.holdOf(stack, c.address, verdict) : undefined;
    if (own) out.set(c.address, locationHold(stack, c.address, own, clock));
  }
  for (let grew = true; grew;) {
    grew = false;
    for (const c of changes) {
      if (out.has(c.address) || !held.addresses.has(c.address)) continue;
      const on = c.dependsOn.find((d) => out.has(d));
      const via = on === undefined ? undefined : out.get(on);
      if (!on || !via) continue;
      out.set(c.address, { ...via, address: c.address, dependsOn: via.dependsOn ?? on });
      grew = true;
    }
  }
  return out;
}

function stackHolds(
  stack: string,
  windows: readonly SyncWindow[],
  plan: Plan,
  locations: LocationWindows,
  clock: WindowClock,
): WindowHold[] {
  const changes = plan.changes.filter((c) => c.stack === stack && c.action !== 'no-op');
  const waves = (plan.rollouts ?? []).filter((r) => r.stack === stack).flatMap((r) => r.waves.flatMap((w) => w.machines));
  const v = clock.verdict(windows);
  if (!v.open) {
    const base = { stack, scope: 'stack' as const, reason: v.reason ?? 'outside its windows', ...until(clock, windows) };
    const addresses = new Set([...changes.map((c) => c.address), ...waves.map((m) => m.address)]);
    return [...addresses].map((address) => ({ ...base, address }));
  }
  if (!locations.any) return [];
  const staged = new Set(waves.map((m) => m.address));
  return [...rolloutHolds(stack, plan, locations, clock).values(), ...plainHolds(stack, changes, staged, locations, clock).values()];
}

/**
 * What the windows would hold of `plan` now; undefined when neither its stacks nor their
 * locations have windows. `windowsOf` gives a stack's windows (its own, and the reconciler's
 * flags where it runs); `locations` the project's location windows when the caller has them.
 */
export function windowHolds(input: {
  readonly stacks: readonly DesiredStack[];
  readonly states: ReadonlyMap<string, State>;
  readonly plan: Plan;
  readonly windowsOf: (stack: DesiredStack) => readonly SyncWindow[];
  readonly clock: WindowClock;
  readonly locations?: LocationWindows;
}): WindowHolds | undefined {
  const { stacks, plan } = input;
  const clock = readOnce(input.clock);
  const own = new Map(stacks.map((s) => [s.name, input.windowsOf(s)]));
  const locations = input.locations ?? new LocationWindows(stacks, input.states, plan.changes);
  if (!locations.any && [...own.values()].every((w) => w.length === 0)) return undefined;
  const holds = stacks.flatMap((s) => stackHolds(s.name, own.get(s.name) ?? [], plan, locations, clock));
  return { checkedAt: new Date(clock.now).toISOString(), holds };
}

/** The plan with what the windows would hold of it now (none said when nothing has windows). */
export function withWindowHolds(plan: Plan, input: Omit<Parameters<typeof windowHolds>[0], 'plan'>): Plan {
  const { windows: _stale, ...rest } = plan;
  const windows = windowHolds({ ...input, plan });
  return windows ? { ...rest, windows } : rest;
}
