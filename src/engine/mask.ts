import { childPath } from '../domain/json-path';
import { createHash } from 'node:crypto';
import { isObject, type JsonValue } from './json';

/** Secrets are stored and compared as salted hashes; this prefix marks one. */
export const SENSITIVE_PREFIX = 'sensitive:sha256:';

export function isMasked(value: unknown): boolean {
  return typeof value === 'string' && value.startsWith(SENSITIVE_PREFIX);
}

export function maskValue(value: JsonValue, salt: string): string {
  if (isMasked(value)) return value as string;
  return SENSITIVE_PREFIX + createHash('sha256').update(salt).update('\0').update(JSON.stringify(value)).digest('hex');
}

/**
 * Replaces the values at the given paths (diffJson's notation) by salted hashes, so two
 * masked documents compare equal exactly when their secrets are equal.
 */
export function maskPaths<T extends JsonValue>(value: T, paths: readonly string[], salt: string): T {
  if (paths.length === 0) return value;
  const wanted = new Set(paths);
  const walk = (v: JsonValue, path: string): JsonValue => {
    if (wanted.has(path)) return maskValue(v, salt);
    if (Array.isArray(v)) return v.map((x, i) => walk(x, childPath(path, i)));
    if (isObject(v)) {
      const out: { [k: string]: JsonValue } = {};
      for (const [k, x] of Object.entries(v)) out[k] = walk(x, childPath(path, k));
      return out;
    }
    return v;
  };
  return walk(value, '') as T;
}
