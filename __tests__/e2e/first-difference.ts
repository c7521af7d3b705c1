/** The first place two JSON values differ, object key order aside: its path and what each side holds there. */
export interface JsonDifference {
  /** `components[2].attributes.pins`, or `(root)`. */
  readonly path: string;
  readonly expected: string;
  readonly actual: string;
}

const ABSENT = '(absent)';

function describe(value: unknown): string {
  return value === undefined ? ABSENT : JSON.stringify(value);
}

function step(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  const plain = /^[A-Za-z_$][\w$-]*$/.test(key) ? key : JSON.stringify(key);
  return path === '' ? plain : /^[A-Za-z_$]/.test(plain) ? `${path}.${plain}` : `${path}[${plain}]`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function walk(actual: unknown, expected: unknown, path: string): JsonDifference | undefined {
  const differs = (): JsonDifference => ({ path: path || '(root)', expected: describe(expected), actual: describe(actual) });
  if (Array.isArray(actual) && Array.isArray(expected)) {
    for (let i = 0; i < Math.max(actual.length, expected.length); i++) {
      const found = walk(actual[i], expected[i], step(path, i));
      if (found) return found;
    }
    return undefined;
  }
  if (isRecord(actual) && isRecord(expected)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])].sort();
    for (const key of keys) {
      const found = walk(actual[key], expected[key], step(path, key));
      if (found) return found;
    }
    return undefined;
  }
  return Object.is(actual, expected) ? undefined : differs();
}

/** Where `actual` first differs from `expected` (keys in sorted order, lists by index), or undefined when they are JSON-equal. */
export function firstDifference(actual: unknown, expected: unknown): JsonDifference | undefined {
  return walk(actual, expected, '');
}

/** One line naming the first difference, or undefined when there is none. */
export function differenceLine(label: string, actual: unknown, expected: unknown): string | undefined {
  const found = firstDifference(actual, expected);
  return found && `${label}: at ${found.path} the config holds ${found.expected}, synth gives ${found.actual}`;
}
