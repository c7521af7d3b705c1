/**
 * Construct types: what a fleetform construct is (a machine, a module, a resource of a
 * kind), recorded on each instance under a global symbol so that
 * two copies of the library loaded in one process (a user's app and the CLI) still
 * recognize each other's constructs, the way cdktf and constructs do.
 */

import { beginConstruction } from './construction';

/** The stored key stays as earlier versions wrote it, so their constructs are still recognized. */
const CONSTRUCT_TYPE = Symbol.for('fleetform.constructs.kind');

/**
 * Every type of construct this library defines. A construct of a resource kind added
 * later is marked with its Terraform type (e.g. `fleetform_note`), so adding one needs
 * no entry here.
 */
export type ConstructType =
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
 * Records the type of a construct; called first in each constructor, it also marks the
 * construct as under construction until registerFleetConstruct. Nothing to record when
 * the construct's class carries the type on its prototype (markConstructTypeOfClass).
 */
export function markConstructType(construct: object, type: ConstructType): void {
  beginConstruction(construct);
  if (constructTypeOf(construct) === type) return;
  Object.defineProperty(construct, CONSTRUCT_TYPE, { value: type, enumerable: false });
}

/**
 * Records the type of every instance of a class (and of its subclasses) on its prototype:
 * for the constructs an app declares by the hundred thousand, a property less each.
 */
export function markConstructTypeOfClass(cls: { readonly prototype: object }, type: ConstructType): void {
  Object.defineProperty(cls.prototype, CONSTRUCT_TYPE, { value: type, enumerable: false });
}

/** The type of a fleetform construct, or undefined for anything else. */
export function constructTypeOf(x: unknown): ConstructType | undefined {
  if (x === null || typeof x !== 'object') return undefined;
  const type: unknown = (x as { [CONSTRUCT_TYPE]?: unknown })[CONSTRUCT_TYPE];
  return typeof type === 'string' ? (type as ConstructType) : undefined;
}
