import { findCycles } from '../../src/domain/cycles';

describe('findCycles', () => {
  test('each cycle once, from its earliest node; dependencies outside the graph ignored', () => {
    const deps: Record<string, string[]> = { a: ['b'], b: ['c', 'outside'], c: ['a'], d: ['d'], e: ['a'] };
    expect(findCycles(['a', 'b', 'c', 'd', 'e'], (n) => deps[n] ?? [])).toEqual([['a', 'b', 'c'], ['d']]);
    expect(findCycles(['c', 'b', 'a'], (n) => deps[n] ?? [])).toEqual([['c', 'a', 'b']]);
  });

  test('an acyclic graph has none, and a chain of 100,000 does not overflow the stack', () => {
    const n = 100_000;
    const nodes = Array.from({ length: n }, (_, i) => i);
    expect(findCycles(nodes, (i) => (i + 1 < n ? [i + 1] : []))).toEqual([]);
    expect(findCycles(nodes, (i) => [(i + 1) % n])).toHaveLength(1);
  });
});
