/** Equality of JSON values: what the plan uses to decide that nothing changed. */
import fc from 'fast-check';
import { jsonEqual, stableStringify } from '../../src/engine/json';

/** The same value with every object's keys in reverse order. */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([k, v]) => [k, reordered(v)]),
    );
  }
  return value;
}

const json = fc.jsonValue({ maxDepth: 4 });

test('equal exactly when the key-sorted texts are equal', () => {
  fc.assert(
    fc.property(json, json, (a, b) => {
      expect(jsonEqual(a, b)).toBe(stableStringify(a) === stableStringify(b));
    }),
    { seed: 19, numRuns: 500 },
  );
});

test('key order does not matter, and a value equals itself', () => {
  fc.assert(
    fc.property(json, (a) => {
      expect(jsonEqual(a, reordered(a))).toBe(true);
      expect(jsonEqual(reordered(a), a)).toBe(true);
    }),
    { seed: 19, numRuns: 300 },
  );
});

test.each([
  [{ a: 1 }, { a: 1, b: 2 }],
  [{ a: 1, b: 2 }, { a: 1 }],
  [{ a: 1 }, { b: 1 }],
  [
    [1, 2],
    [2, 1],
  ],
  [[1], { 0: 1 }],
  [{}, []],
  [null, {}],
  ['1', 1],
  [{ a: [1, { b: null }] }, { a: [1, { b: false }] }],
])('%j differs from %j', (a, b) => {
  expect(jsonEqual(a, b)).toBe(false);
  expect(jsonEqual(b, a)).toBe(false);
});
