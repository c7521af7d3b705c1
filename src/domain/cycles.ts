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

/**
 * Whether a graph of nodes 0..n-1 (edges[i]: the nodes i depends on, each below n) has no
 * cycle, so findCycles would find none: a depth-first walk without allocations per node.
 */
export function isAcyclic(edges: readonly (readonly number[])[]): boolean {
  // 0: not seen, 1: on the walk's path, 2: done.
  const state = new Uint8Array(edges.length);
  const nodeStack: number[] = [];
  const edgeStack: number[] = [];
  for (let root = 0; root < edges.length; root++) {
    if (state[root] !== 0) continue;
    state[root] = 1;
    nodeStack.push(root);
    edgeStack.push(0);
    while (nodeStack.length > 0) {
      const top = nodeStack.length - 1;
      const node = nodeStack[top] as number;
      const out = edges[node] as readonly number[];
      const e = edgeStack[top] as number;
      if (e === out.length) {
        state[node] = 2;
        nodeStack.pop();
        edgeStack.pop();
        continue;
      }
      edgeStack[top] = e + 1;
      const next = out[e] as number;
      if (state[next] === 1) return false;
      if (state[next] === 0) {
        state[next] = 1;
        nodeStack.push(next);
        edgeStack.push(0);
      }
    }
  }
  return true;
}
