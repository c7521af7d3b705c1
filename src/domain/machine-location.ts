/**
 * Where a machine whose code names no location lives: the location its provider names
 * (code decides), else where the machine already is (the state knows it, so a location
 * added later never moves it), else the organization's only location. The locations the
 * stack creates in the same run count: with them the organization will have several, and a
 * new machine must then say which (the first plan says so, not the one after the apply).
 */
export interface UnsetLocationInput {
  /** The location the provider names (or the run's configured default), when any. */
  readonly named?: string;
  /** Where the machine is now, as its state entry says; empty or undefined for a new machine. */
  readonly current?: string;
  /** The organization's locations now. */
  readonly existing: readonly string[];
  /** How many locations the stack creates in this run. */
  readonly creating: number;
}

export type UnsetLocation =
  { readonly locationId: string } | { readonly locationId: undefined; readonly locations: number; readonly creating: number };

export function locationOfUnplacedMachine(input: UnsetLocationInput): UnsetLocation {
  if (input.named) return { locationId: input.named };
  if (input.current) return { locationId: input.current };
  const only = input.existing.length === 1 && input.creating === 0 ? input.existing[0] : undefined;
  if (only !== undefined) return { locationId: only };
  return { locationId: undefined, locations: input.existing.length, creating: input.creating };
}
