/** A key written bare in a path: letters, digits, `_` and `-` (entry names such as `sensor-1`), not starting with a digit or `-`. */
const BARE_KEY = /^[A-Za-z_][\w-]*$/;

/**
 * Appends a key to a JSON path, the one notation of paths in validation issues, plans,
 * masking and state: `a.b`, `a.sensor-1`, `a[2]`, or `a["odd key"]` for any other key.
 */
export function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  if (BARE_KEY.test(key)) return path ? `${path}.${key}` : key;
  return `${path}[${JSON.stringify(key)}]`;
}

/** A path given as its keys (e.g. a zod issue's), in the same notation. */
export function pathOf(keys: readonly PropertyKey[]): string {
  return keys.reduce<string>((path, key) => childPath(path, typeof key === 'number' ? key : String(key)), '');
}
