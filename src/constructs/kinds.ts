/**
 * Kinds of fleetform constructs, recorded on each instance under a global symbol so that
 * two copies of the library loaded in one process (a user's app and the CLI) still
 * recognize each other's constructs, the way cdktf and constructs do.
 */

import { beginConstruction } from './construction';

const KIND = Symbol.for('fleetform.constructs.kind');

/**
 * Every kind of construct this library defines. A construct of a resource kind added
 * later is marked with its Terraform type (e.g. `fleetform_note`), so adding one needs
 * no entry here.
 */
export type FleetKind =
  | 'provider'
  | 'machine'
  | 'module'
  | 'modular-resource'
  | 'package'
  | 'dataset'
  | 'training-job'
  | 'custom-training-job'
  | `fleetform_${string}`;

/**
 * Records the kind of a construct; called first in each constructor, it also marks the
 * construct as under construction until registerFleetConstruct. Nothing to record when
 * the construct's class carries the kind on its prototype (markKindOfClass).
 */
export function markKind(construct: object, kind: FleetKind): void {
  beginConstruction(construct);
  if (kindOf(construct) === kind) return;
  Object.defineProperty(construct, KIND, { value: kind, enumerable: false });
}

/**
 * Records the kind of every instance of a class (and of its subclasses) on its prototype:
 * for the constructs an app declares by the hundred thousand, a property less each.
 */
export function markKindOfClass(cls: { readonly prototype: object }, kind: FleetKind): void {
  Object.defineProperty(cls.prototype, KIND, { value: kind, enumerable: false });
}

/** The kind of a fleetform construct, or undefined for anything else. */
export function kindOf(x: unknown): FleetKind | undefined {
  if (x === null || typeof x !== 'object') return undefined;
  const kind: unknown = (x as { [KIND]?: unknown })[KIND];
  return typeof kind === 'string' ? (kind as FleetKind) : undefined;
}
