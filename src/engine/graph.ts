import { findCycles } from '../domain/cycles';
import { FleetformError } from '../domain/errors';

export type NodeOutcome = 'done' | 'failed' | 'skipped';

/**
 * Runs `work` for every node after the nodes it depends on, at most `parallelism` at a
 * time (a function is asked again before each start, so the bound may move while running). A node whose dependency failed or was skipped is skipped; independent nodes go
 * on. Dependencies outside `nodes` are taken as already satisfied.
 */
export async function runGraph<K extends string>(
  nodes: readonly K[],
  dependencies: (node: K) => readonly string[],
  parallelism: number | (() => number),
  work: (node: K) => Promise<void>,
  onSkip?: (node: K, because: string) => void,
): Promise<Map<K, NodeOutcome>> {
  const members = new Set<string>(nodes);
  const waitingOn = new Map<K, Set<string>>();
  const dependents = new Map<string, K[]>();
  for (const n of nodes) {
    const deps = new Set(dependencies(n).filter((d) => members.has(d) && d !== n));
    waitingOn.set(n, deps);
    for (const d of deps) {
      // Appended in place: ten thousand machines may depend on one fragment.
      const list = dependents.get(d);
      if (list) list.push(n);
      else dependents.set(d, [n]);
    }
  }
  assertAcyclic(nodes, (n) => [...(waitingOn.get(n) ?? [])]);
  const outcome = new Map<K, NodeOutcome>();
  const ready: K[] = nodes.filter((n) => waitingOn.get(n)?.size === 0);
  let running = 0;
  const limit = (): number => Math.max(1, Math.floor(typeof parallelism === 'function' ? parallelism() : parallelism));

  return new Promise((resolve, reject) => {
    const finish = (node: K, result: NodeOutcome, cause?: string): void => {
      outcome.set(node, result);
      for (const child of dependents.get(node) ?? []) {
        if (outcome.has(child)) continue;
        if (result !== 'done') {
          onSkip?.(child, cause ?? node);
          finish(child, 'skipped', cause ?? node);
          continue;
        }
        const w = waitingOn.get(child);
        w?.delete(node);
        if (w?.size === 0) ready.push(child);
      }
    };
    const pump = (): void => {
      while (running < limit() && ready.length > 0) {
        const node = ready.shift() as K;
        if (outcome.has(node)) continue;
        running++;
        work(node).then(
          () => {
            running--;
            finish(node, 'done');
            pump();
          },
          () => {
            running--;
            finish(node, 'failed', node);
            pump();
          },
        );
      }
      if (running === 0 && ready.length === 0) {
        if (outcome.size === nodes.length) resolve(outcome);
        else reject(new Error('dependency graph could not be completed'));
      }
    };
    pump();
  });
}

/** Throws naming the cycle when the dependencies loop. */
export function assertAcyclic<K extends string>(nodes: readonly K[], deps: (n: K) => readonly string[]): void {
  const members = new Set<string>(nodes);
  const cycle = findCycles<string>(nodes, (n) => deps(n as K).filter((d) => members.has(d)))[0];
  if (!cycle) return;
  throw new FleetformError(`dependency cycle: ${[...cycle, cycle[0]].join(' -> ')}`, {
    path: cycle[0],
    hint: 'remove one of these dependencies',
  });
}
