import { childPath } from '../domain/json-path';
import { isObject, jsonEqual, type JsonValue } from './json';

/** One attribute-level difference between two JSON documents. */
export interface AttributeChange {
  readonly path: string;
  readonly kind: 'add' | 'remove' | 'change';
  readonly before?: JsonValue;
  readonly after?: JsonValue;
}

/**
 * JSON-aware diff: objects are compared key by key, recursively, so a changed key deep
 * inside `attributes` shows as that key. Arrays of scalars or of differing length are
 * compared as whole values (their order is meaningful); arrays of equal length are
 * compared element by element.
 */
export function diffJson(before: JsonValue | undefined, after: JsonValue | undefined, path = ''): AttributeChange[] {
  if (before === undefined && after === undefined) return [];
  if (before === undefined) return [{ path, kind: 'add', after }];
  if (after === undefined) return [{ path, kind: 'remove', before }];
  if (jsonEqual(before, after)) return [];
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((k) => diffJson(before[k], after[k], childPath(path, k)));
  }
  if (
    Array.isArray(before) &&
    Array.isArray(after) &&
    before.length === after.length &&
    before.some((v) => isObject(v) || Array.isArray(v))
  ) {
    return before.flatMap((v, i) => diffJson(v, after[i], childPath(path, i)));
  }
  return [{ path, kind: 'change', before, after }];
}
