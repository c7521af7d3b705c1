import { jsonEqual, type JsonObject, type JsonPrimitive, type JsonValue } from '../domain/json-value';
import { setOwn } from '../domain/own-keys';

export { jsonEqual, setOwn };
export type { JsonObject, JsonPrimitive, JsonValue };

/**
 * A value that is only known once apply has run (for example the id of a dataset that
 * does not exist yet). It is a marker string so that plans stay plain JSON.
 */
export const UNKNOWN = '(known after apply)';


export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deterministic serialization: object keys sorted, so equal values give equal text. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}


/** Converts arbitrary parsed data (e.g. from JSON.parse or a Struct) into JsonValue, dropping undefined. */
export function toJson(value: unknown): JsonValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(toJson);
  if (typeof value === 'object') {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) setOwn(out, k, toJson(v));
    return out;
  }
  return String(value);
}
