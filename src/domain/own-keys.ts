/**
 * Sets an own, enumerable key: unlike `target[key] = value`, a key named `__proto__` becomes
 * a key of the object (as JSON.parse makes it) instead of replacing its prototype.
 */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  // Only `__proto__` has a setter on Object.prototype: every other key is assigned (much faster).
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** Whether a record has an own enumerable key (without listing its keys, as Object.keys would). */
export function hasOwnKeys(record: object): boolean {
  for (const key in record) if (Object.prototype.hasOwnProperty.call(record, key)) return true;
  return false;
}

/** A record holding exactly `entries` as own keys, whatever their names. */
export function ownRecord<T>(entries: Iterable<readonly [string, T]>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [k, v] of entries) setOwn(out, k, v);
  return out;
}
