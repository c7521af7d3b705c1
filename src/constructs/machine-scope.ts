import type { IConstruct } from 'constructs';
import { FleetformError } from '../domain/errors';
import { kindOf } from './kinds';
import type { IMachine as Machine } from './machine-parts';

/** The closest enclosing Machine of a construct, or undefined when it is not inside one. */
export function enclosingMachine(construct: IConstruct): Machine | undefined {
  for (let scope = construct.node.scope; scope !== undefined; scope = scope.node.scope) {
    if (kindOf(scope) === 'machine') return scope as Machine;
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
    throw new FleetformError(`${what} must be declared inside a Machine`, {
      path: part.node.path,
      hint: `pass the machine (or a construct inside it) as the scope: new ${what}(machine, '${part.node.id}', {...})`,
    });
  }
  return machine;
}
