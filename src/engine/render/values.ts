import { isMasked } from '../mask';
import { isObject, UNKNOWN, type JsonValue } from '../json';

/** Replaces stored secret hashes by `(sensitive)` for display. */
export function redact(value: JsonValue | undefined): JsonValue | undefined {
  if (value === undefined) return undefined;
  if (isMasked(value)) return '(sensitive)';
  if (Array.isArray(value)) return value.map((v) => redact(v) ?? null);
  if (isObject(value)) {
    const out: { [k: string]: JsonValue } = {};
    for (const [k, v] of Object.entries(value)) out[k] = redact(v) ?? null;
    return out;
  }
  return value;
}

/** A value as a reviewer reads it: JSON, secrets and unknowns in words. */
export function showValue(value: JsonValue | undefined, indent = ''): string {
  if (value === undefined) return '(none)';
  if (isMasked(value)) return '(sensitive)';
  if (value === UNKNOWN) return UNKNOWN;
  if (isObject(value) || Array.isArray(value)) {
    const text = JSON.stringify(redact(value), null, 2);
    return text.length <= 60 ? JSON.stringify(redact(value)) : text.split('\n').join(`\n${indent}`);
  }
  return JSON.stringify(value);
}
