import { PlanValue, SensitiveDigest, Unknown } from './plan-values';

/**
 * A JSON value as fleetform handles it: plain data, plus a plan's typed values (a value known
 * only after apply, a secret's digest), comparable and serializable.
 */
export type JsonPrimitive = string | number | boolean | null | Unknown | SensitiveDigest;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** A JSON value as a caller hands it in, whose arrays and objects may be read-only (`as const`). */
export type ReadonlyJsonValue = JsonPrimitive | readonly ReadonlyJsonValue[] | { readonly [key: string]: ReadonlyJsonValue };
export type ReadonlyJsonObject = { readonly [key: string]: ReadonlyJsonValue };

/** An object of a JSON value (not an array, not null, not a plan's unknown or digest); its values are taken for JSON values. */
export function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof PlanValue);
}

/** Deep equality of JSON values; key order does not matter. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  // Digests are one instance per digest: unequal when not the same; unknowns are all alike.
  if (a instanceof PlanValue || b instanceof PlanValue) return a instanceof Unknown && b instanceof Unknown;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let count = 0;
  for (const k in x) {
    if (!Object.prototype.hasOwnProperty.call(x, k)) continue;
    if (!Object.prototype.hasOwnProperty.call(y, k) || !jsonEqual(x[k], y[k])) return false;
    count++;
  }
  for (const k in y) if (Object.prototype.hasOwnProperty.call(y, k)) count--;
  return count === 0;
}
