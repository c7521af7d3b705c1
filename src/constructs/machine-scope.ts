import type { IConstruct } from 'constructs';
import { FleetformError } from '../domain/errors';
import { FRAGMENT_TYPE } from '../domain/resource-attributes';
import { constructTypeOf } from './construct-types';
import type { IMachine as Machine } from './machine-parts';

/** The kind a Fragment construct is marked with: it holds modules and resources as a machine does. */
export const FRAGMENT_KIND = FRAGMENT_TYPE;

/** The kind a Part construct is marked with: a machine's part other than its main one, holding modules and resources of its own. */
export const PART_KIND = 'fleetform_machine_part';

/** Whether a construct holds machine parts: a Machine (its main part), a Part or a Fragment. */
export function holdsMachineParts(construct: IConstruct): boolean {
  const kind = constructTypeOf(construct);
  return kind === 'machine' || kind === FRAGMENT_KIND || kind === PART_KIND;
}

/** The closest enclosing Machine (or Fragment) of a construct, or undefined when it is not inside one. */
export function enclosingMachine(construct: IConstruct): Machine | undefined {
  for (let scope = construct.node.scope; scope !== undefined; scope = scope.node.scope) {
    if (holdsMachineParts(scope)) return scope as Machine;
  }
  return undefined;
}

/**
 * The Machine a machine part (a module or a modular resource) belongs to. Declaring a
 * part outside every machine is a wiring mistake in the program, reported at once.
 */
export function owningMachine(part: IConstruct, what: string): Machine {
  const machine = enclosingMachine(part);
  if (machine === undefined) {
    throw new FleetformError(`${what} must be declared inside a Machine or a Fragment`, {
      path: part.node.path,
      hint: `pass the machine or fragment (or a construct inside it) as the scope: new ${what}(machine, '${part.node.id}', {...})`,
    });
  }
  return machine;
}
