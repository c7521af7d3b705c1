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
