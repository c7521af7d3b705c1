import { isObject, PlanValue, type JsonValue } from './json';

/** Replaces secrets' digests and values not known yet by the words a reviewer reads, `(sensitive)` and the like. */
export function redact(value: JsonValue | undefined): JsonValue | undefined {
  if (value === undefined) return undefined;
  if (value instanceof PlanValue) return value.describe();
  if (Array.isArray(value)) return value.map((v) => redact(v) ?? null);
  if (isObject(value)) {
    const out: { [k: string]: JsonValue } = {};
    for (const [k, v] of Object.entries(value)) out[k] = redact(v) ?? null;
    return out;
  }
  return value;
}

/** A value as a reviewer reads it: JSON (text quoted, whatever it says), secrets and unknowns in words. */
export function showValue(value: JsonValue | undefined, indent = ''): string {
  if (value === undefined) return '(none)';
  if (value instanceof PlanValue) return value.describe();
  if (isObject(value) || Array.isArray(value)) {
    const text = JSON.stringify(redact(value), null, 2);
    return text.length <= 60 ? JSON.stringify(redact(value)) : text.split('\n').join(`\n${indent}`);
  }
  return JSON.stringify(value);
}
