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

/**
 * `compute` memoized per object for the current generation: computed again once any
 * fleetform construct has been created since. What it returns is shared: do not mutate.
 */
export function perGeneration<K extends object, V>(compute: (key: K) => V): (key: K) => V {
  const memo = new WeakMap<K, { readonly generation: number; readonly value: V }>();
  return (key) => {
    const cached = memo.get(key);
    if (cached && cached.generation === generation) return cached.value;
    const value = compute(key);
    memo.set(key, { generation, value });
    return value;
  };
}
