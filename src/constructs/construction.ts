/**
 * Constructs whose constructor has not finished: one that threw (a construct refusing its
 * props, say) stays in the construct tree half made, and an app that catches the error
 * can go on. Checks and config assembly pass such a construct by: its error is the app's
 * to report, not a failure of the checks. Shared by every copy of the library in a process.
 *
 * A list, not a set: constructors nest only as deep as the construct tree, so it holds a
 * few entries (and the constructs that threw), and an app declaring its constructs by the
 * hundred thousand hashes none of them.
 */
const UNFINISHED = Symbol.for('fleetform.constructs.unfinished-list');

const unfinished: object[] = ((globalThis as { [UNFINISHED]?: object[] })[UNFINISHED] ??= []);

/** Called first in a fleetform construct's constructor. */
export function beginConstruction(construct: object): void {
  unfinished.push(construct);
}

/** Called last in a fleetform construct's constructor. */
export function finishConstruction(construct: object): void {
  while (unfinished.length > 0 && unfinished[unfinished.length - 1] === construct) unfinished.pop();
  // Constructs that threw inside this one's constructor stay listed above it.
  for (let at = unfinished.lastIndexOf(construct); at >= 0; at = unfinished.lastIndexOf(construct)) unfinished.splice(at, 1);
}

/** Whether the construct's constructor ran to its end. */
export function isFinished(construct: object): boolean {
  return unfinished.length === 0 || !unfinished.includes(construct);
}
