/**
 * The elementary cycles a depth-first walk of a dependency graph meets, each reported
 * once, as the nodes around it starting from the earliest in `nodes` order (the walk
 * back to it is implied). Dependencies on nodes outside `nodes` are ignored. The walk is
 * iterative: a long chain of dependencies cannot overflow the stack.
 */
export function findCycles<K>(nodes: readonly K[], dependencies: (node: K) => readonly K[]): K[][] {
  const order = new Map<K, number>();
  nodes.forEach((n, i) => order.set(n, i));
  const state = new Map<K, 'open' | 'done'>();
  const seen = new Set<string>();
  const cycles: K[][] = [];
  for (const root of nodes) {
    if (state.has(root)) continue;
    const path: K[] = [root];
    const pending: Array<K[]> = [dependencies(root).filter((d) => order.has(d))];
    state.set(root, 'open');
    while (path.length > 0) {
      const next = pending[pending.length - 1]?.shift();
      if (next === undefined) {
        state.set(path.pop() as K, 'done');
        pending.pop();
        continue;
      }
      const s = state.get(next);
      if (s === 'open') {
        const cycle = path.slice(path.indexOf(next));
        const first = cycle.reduce((best, n, i) => ((order.get(n) as number) < (order.get(cycle[best] as K) as number) ? i : best), 0);
        const canonical = [...cycle.slice(first), ...cycle.slice(0, first)];
        const key = canonical.map((n) => order.get(n)).join(',');
        if (!seen.has(key)) {
          seen.add(key);
          cycles.push(canonical);
        }
      } else if (s === undefined) {
        state.set(next, 'open');
        path.push(next);
        pending.push(dependencies(next).filter((d) => order.has(d)));
      }
    }
  }
  return cycles;
}
