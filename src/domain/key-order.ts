import { isObject } from './json-value';

/**
 * A config to write, with its keys in the order the stored config has them: a key both
 * hold comes where the stored config puts it, a key only the new config holds comes after
 * them, in the new config's order. Entries of a list are matched by `name` when every
 * entry of both lists has one, else by position. Values are never changed, only the order
 * of keys, so a write keeps what a person wrote (or the app shows) where nothing changed.
 */
export function inKeyOrderOf<T>(value: T, stored: unknown): T {
  return reordered(value, stored) as T;
}

function reordered(value: unknown, stored: unknown): unknown {
  if (Array.isArray(value)) return Array.isArray(stored) ? reorderedList(value, stored) : value;
  if (!isObject(value) || !isObject(stored)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(stored)) {
    if (Object.prototype.hasOwnProperty.call(value, key)) define(out, key, reordered(value[key], stored[key]));
  }
  for (const key of Object.keys(value)) {
    if (!Object.prototype.hasOwnProperty.call(out, key)) define(out, key, value[key]);
  }
  return out;
}

/** Sets an own key, `__proto__` included (a config may hold one; assignment would set the prototype). */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function reorderedList(value: readonly unknown[], stored: readonly unknown[]): unknown[] {
  const byName = namedEntries(stored);
  if (byName !== undefined && namedEntries(value) !== undefined) {
    return value.map((entry) => reordered(entry, byName.get((entry as { name: string }).name)));
  }
  return value.map((entry, i) => reordered(entry, stored[i]));
}

/** The entries by name when each is an object with a string name, names unique; else undefined. */
function namedEntries(list: readonly unknown[]): Map<string, unknown> | undefined {
  const byName = new Map<string, unknown>();
  for (const entry of list) {
    if (!isObject(entry) || typeof entry.name !== 'string' || byName.has(entry.name)) return undefined;
    byName.set(entry.name, entry);
  }
  return byName;
}
