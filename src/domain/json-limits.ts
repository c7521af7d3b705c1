/**
 * Bounds of a config value checked before anything walks it recursively: nesting depth,
 * number of values, length of strings and keys. A value beyond them is refused with one
 * clear issue instead of exhausting the stack or the memory of the process (a value that
 * contains itself ends at the depth limit).
 */
import { childPath, errorIssue, type Issue } from './issue';

export interface JsonLimits {
  /** Deepest nesting of objects and arrays. */
  readonly maxDepth: number;
  /** Values in the whole document (objects, arrays and scalars). */
  readonly maxValues: number;
  /** Characters of one string or key. */
  readonly maxStringLength: number;
}

export const DEFAULT_JSON_LIMITS: JsonLimits = {
  maxDepth: 64,
  maxValues: 500_000,
  maxStringLength: 1_000_000,
};

interface Pending {
  readonly value: unknown;
  readonly depth: number;
  readonly keys: readonly (string | number)[];
}

/** The first limit `value` exceeds, as an issue at its path; undefined when within all. */
export function checkJsonLimits(value: unknown, base = '', limits: JsonLimits = DEFAULT_JSON_LIMITS): Issue | undefined {
  const stack: Pending[] = [{ value, depth: 0, keys: [] }];
  const pathOf = (keys: readonly (string | number)[]): string => keys.reduce<string>((p, k) => childPath(p, k), base);
  let count = 0;
  while (stack.length > 0) {
    const { value: v, depth, keys } = stack.pop() as Pending;
    count += 1;
    if (count > limits.maxValues) {
      return errorIssue('too-large', base, `the config holds more than ${limits.maxValues} values`, 'split it across machines or fragments, or move bulk data out of attributes');
    }
    if (typeof v === 'string') {
      if (v.length > limits.maxStringLength) {
        return errorIssue('too-large', pathOf(keys), `a string of ${v.length} characters is longer than the limit of ${limits.maxStringLength}`, 'keep large data out of the config (a file on the machine, or a dataset)');
      }
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= limits.maxDepth) {
      return errorIssue('too-deep', pathOf(keys), `nesting deeper than ${limits.maxDepth} levels`, `flatten the value; at most ${limits.maxDepth} levels of objects and arrays`);
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], depth: depth + 1, keys: [...keys, i] });
    } else {
      for (const [k, child] of Object.entries(v)) {
        if (k.length > limits.maxStringLength) {
          return errorIssue('too-large', pathOf(keys), `a key of ${k.length} characters is longer than the limit of ${limits.maxStringLength}`, 'use short keys');
        }
        stack.push({ value: child, depth: depth + 1, keys: [...keys, k] });
      }
    }
  }
  return undefined;
}
