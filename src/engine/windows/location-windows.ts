/**
 * Windows per location: a stack's policy may give windows to a location (a Location of the
 * stack, or a location id). A machine of that location is written only while they are open,
 * on top of the stack's own windows; machines of other locations are not held by them.
 *
 * A location is matched as the code gives it and as the service knows it: a rule naming a
 * Location of its stack (`${fleetform_location.x.id}`) matches that stack's machines declaring
 * the same reference, and, once the location exists, any machine of the project in its id. A
 * rule naming an id matches the machines of every stack in that id.
 */
import type { RolloutPlan } from '../../domain/rollout';
import { parseWindow, type SyncWindow, type WindowVerdict } from '../../domain/sync-windows';
import type { DesiredStack } from '../desired/stack';
import { machineDeclaration } from '../kinds/machine';
import type { ResourceChange } from '../plan-model';
import type { RolloutJournal } from '../state/rollout-journal';
import { isUnfinished } from '../state/rollout-journal-pacing';
import type { State } from '../state/schema';

/** One location's windows, and the keys its machines are known by. */
interface LocationRule {
  /** How messages name it: the Location's name, else its id. */
  readonly label: string;
  readonly keys: ReadonlySet<string>;
  readonly windows: readonly SyncWindow[];
}

/** Why a machine is not written now: its location's windows are closed. */
export interface MachineHold {
  readonly location: string;
  readonly reason: string;
  /** The location's windows, to tell when they open. */
  readonly windows: readonly SyncWindow[];
}

/** The machines of one closed location held back from an apply. */
export interface LocationHeld {
  readonly location: string;
  readonly reason: string;
  readonly machines: readonly string[];
}

const REFERENCE = /^\$\{(fleetform_location\.[^.}]+)\.id\}$/;

/** A stack-local reference is known within its stack only; an id across the project. */
function scoped(stack: string, location: string): string {
  return REFERENCE.test(location) ? `${stack}|${location}` : location;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The keys a location given as `location` in `stack` is known by: the reference (scoped) and, once it exists, its id. */
function locationKeys(stack: DesiredStack, state: State | undefined, location: string): string[] {
  const address = REFERENCE.exec(location)?.[1];
  const id = address ? text(state?.resources[address]?.ids.id) : undefined;
  return [scoped(stack.name, location), ...(id ? [id] : [])];
}

function locationLabel(stack: DesiredStack, location: string): string {
  const address = REFERENCE.exec(location)?.[1];
  const declared = address ? stack.resources.find((r) => r.address === address) : undefined;
  return text(declared?.attributes.name) ?? location;
}

/** The rules every stack of the project declares; a window that does not read is reported with where it is. */
function rulesOf(stacks: readonly DesiredStack[], states: ReadonlyMap<string, State>): LocationRule[] {
  return stacks.flatMap((stack) =>
    (stack.reconcile?.locations ?? []).map((l, i) => ({
      label: locationLabel(stack, l.location),
      keys: new Set(locationKeys(stack, states.get(stack.name), l.location)),
      windows: l.windows.map((w, j) => parseWindow(w, `${stack.name}#//.fleetform_reconcile.locations[${i}].windows[${j}]`)),
    })),
  );
}

/** Where each machine of the stacks lives, by `stack|address`: as declared, as planned, and as last applied. */
function machineKeys(
  stacks: readonly DesiredStack[],
  states: ReadonlyMap<string, State>,
  changes: readonly ResourceChange[],
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (stack: DesiredStack, address: string, location: string | undefined): void => {
    if (!location) return;
    const key = `${stack.name}|${address}`;
    out.set(key, [...(out.get(key) ?? []), ...locationKeys(stack, states.get(stack.name), location)]);
  };
  for (const stack of stacks) {
    const state = states.get(stack.name);
    for (const r of stack.resources)
      if (r.type === machineDeclaration.type) add(stack, r.address, text(r.attributes.location_id) ?? stack.provider.locationId);
    for (const [address, entry] of Object.entries(state?.resources ?? {}))
      if (entry.type === machineDeclaration.type) add(stack, address, text(entry.attributes?.location_id));
    for (const c of changes)
      if (c.stack === stack.name && c.type === machineDeclaration.type) add(stack, c.address, text(c.after?.location_id));
  }
  return out;
}

/** The project's location windows, and which machines they hold now. */
export class LocationWindows {
  private readonly rules: readonly LocationRule[];
  private readonly machines: ReadonlyMap<string, readonly string[]>;

  constructor(stacks: readonly DesiredStack[], states: ReadonlyMap<string, State>, changes: readonly ResourceChange[]) {
    this.rules = rulesOf(stacks, states);
    this.machines = this.rules.length > 0 ? machineKeys(stacks, states, changes) : new Map();
  }

  /** Whether any location has windows. */
  get any(): boolean {
    return this.rules.length > 0;
  }

  /** The closed location holding the machine at `address` of `stack`, by `verdict`; undefined when none does. */
  holdOf(stack: string, address: string, verdict: (windows: readonly SyncWindow[]) => WindowVerdict): MachineHold | undefined {
    const keys = this.machines.get(`${stack}|${address}`);
    if (!keys) return undefined;
    for (const rule of this.rules) {
      if (!keys.some((k) => rule.keys.has(k))) continue;
      const v = verdict(rule.windows);
      if (!v.open) return { location: rule.label, reason: v.reason ?? 'outside its windows', windows: rule.windows };
    }
    return undefined;
  }

  /**
   * The changes of `stack` held by closed locations: its machines' and, transitively, those
   * depending on them (a held machine's parts); `exempt` addresses are not held here (a
   * rollout's waves wait at their boundary instead). Grouped by location.
   */
  held(
    stack: string,
    changes: readonly ResourceChange[],
    exempt: ReadonlySet<string>,
    verdict: (windows: readonly SyncWindow[]) => WindowVerdict,
  ): { readonly addresses: ReadonlySet<string>; readonly byLocation: readonly LocationHeld[] } {
    const addresses = new Set<string>();
    const groups = new Map<string, { reason: string; machines: string[] }>();
    if (!this.any) return { addresses, byLocation: [] };
    for (const c of changes) {
      if (exempt.has(c.address)) continue;
      const hold = this.holdOf(stack, c.address, verdict);
      if (!hold) continue;
      addresses.add(c.address);
      const g = groups.get(hold.location) ?? { reason: hold.reason, machines: [] };
      g.machines.push(c.address);
      groups.set(hold.location, g);
    }
    // What depends on a held machine waits with it.
    for (let grew = addresses.size > 0; grew;) {
      grew = false;
      for (const c of changes)
        if (!addresses.has(c.address) && c.dependsOn.some((d) => addresses.has(d))) {
          addresses.add(c.address);
          grew = true;
        }
    }
    return { addresses, byLocation: [...groups].map(([location, g]) => ({ location, ...g })) };
  }
}

/** One line saying which machines of which locations wait, and why. */
export function heldText(held: readonly LocationHeld[]): string {
  return held.map((h) => `${h.machines.length} machine(s) of location ${h.location} wait: ${h.reason}`).join('; ');
}

/** Why a wave about to start waits: the first of its machines whose location is closed; undefined when none is. */
export function waveHold(
  locations: LocationWindows,
  stack: string,
  machines: readonly string[],
  verdict: (windows: readonly SyncWindow[]) => WindowVerdict,
): string | undefined {
  for (const address of machines) {
    const hold = locations.holdOf(stack, address, verdict);
    if (hold) return `${address} of location ${hold.location} waits: ${hold.reason}`;
  }
  return undefined;
}

/** What of a stack's changes may be written now, and what its locations' windows hold back. */
export interface LocationPass {
  readonly writable: readonly ResourceChange[];
  readonly held: readonly LocationHeld[];
  /** Set when nothing but its rollout's waves is left to write and the next of them waits: the apply would write nothing. */
  readonly nextWaveHeld?: string;
}

/**
 * Splits a stack's changes by its machines' locations: changes outside any rollout wave are
 * held when their machine's location is closed; a rollout's machines are not held here (its
 * wave waits at its boundary), but when only they are left and the wave to run next waits,
 * `nextWaveHeld` says so, so that no apply starts to write nothing.
 */
export function locationPass(input: {
  readonly locations: LocationWindows;
  readonly stack: string;
  readonly toApply: readonly ResourceChange[];
  readonly rollouts: readonly RolloutPlan[];
  readonly journal: RolloutJournal | undefined;
  readonly verdict: (windows: readonly SyncWindow[]) => WindowVerdict;
}): LocationPass {
  const { locations, stack, toApply, verdict } = input;
  if (!locations.any) return { writable: toApply, held: [] };
  const running = input.journal && isUnfinished(input.journal.status) ? input.journal : undefined;
  const rollouts = input.rollouts.filter((r) => r.stack === stack);
  const waves = [...rollouts.flatMap((r) => r.waves), ...(running?.plan.waves ?? [])];
  const staged = new Set(waves.flatMap((w) => w.machines.map((m) => m.address)));
  const held = locations.held(stack, toApply, staged, verdict);
  const writable = toApply.filter((c) => !held.addresses.has(c.address));
  const own = rollouts.filter((r) => !r.fragment);
  const next = running ? running.plan.waves[running.wave - 1] : own.length === rollouts.length ? own[0]?.waves[0] : undefined;
  const onlyWaves = writable.every((c) => staged.has(c.address));
  const nextWaveHeld =
    onlyWaves && next
      ? waveHold(
          locations,
          stack,
          next.machines.map((m) => m.address),
          verdict,
        )
      : undefined;
  return { writable, held: held.byLocation, ...(nextWaveHeld ? { nextWaveHeld } : {}) };
}
