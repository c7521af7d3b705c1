/** The engine's helpers over the domain's JSON values: deterministic text, and parsed data made JSON. */
import { isObject, jsonEqual, type JsonObject, type JsonPrimitive, type JsonValue } from '../domain/json-value';
import { setOwn } from '../domain/own-keys';
import { isSensitiveDigest, isUnknown, PlanValue, SensitiveDigest, Unknown, unknownValue } from '../domain/plan-values';

export type { JsonObject, JsonPrimitive, JsonValue };
export { isObject, isSensitiveDigest, isUnknown, jsonEqual, PlanValue, SensitiveDigest, setOwn, Unknown, unknownValue };

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
  if (typeof value === 'string' || typeof value === 'boolean' || value instanceof Unknown || value instanceof SensitiveDigest) return value;
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
