/**
 * A counter bumped whenever a fleetform construct is created: the validation of an app
 * is computed once per generation and reused by every construct's validation, so
 * validating a large app stays linear and repeated synths see fresh results.
 */
let generation = 0;

/** Marks the construct tree as changed. */
export function bumpGeneration(): void {
  generation += 1;
}

/** The current generation. */
export function currentGeneration(): number {
  return generation;
}
