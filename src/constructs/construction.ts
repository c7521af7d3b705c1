/**
 * Constructs whose constructor has not finished: one that threw (a construct refusing its
 * props, say) stays in the construct tree half made, and an app that catches the error
 * can go on. Checks and config assembly pass such a construct by: its error is the app's
 * to report, not a failure of the checks. Shared by every copy of the library in a process.
 */
const UNFINISHED = Symbol.for('fleetform.constructs.unfinished');

const unfinished: Set<object> = ((globalThis as { [UNFINISHED]?: Set<object> })[UNFINISHED] ??= new Set());

/** Called first in a fleetform construct's constructor. */
export function beginConstruction(construct: object): void {
  unfinished.add(construct);
}

/** Called last in a fleetform construct's constructor. */
export function finishConstruction(construct: object): void {
  unfinished.delete(construct);
}

/** Whether the construct's constructor ran to its end. */
export function isFinished(construct: object): boolean {
  return unfinished.size === 0 || !unfinished.has(construct);
}
