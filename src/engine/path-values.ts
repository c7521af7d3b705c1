/** Values at paths of a JSON value (diffJson's notation) mapped, the rest of the value its own. */
import { childPath } from '../domain/json-path';
import { isObject, SensitiveDigest, type JsonValue } from './json';

/**
 * A value read from a state document with its secrets typed again: the digests it holds
 * as text at the paths recorded as secret become `SensitiveDigest`s. Text anywhere else,
 * whatever it reads, stays the user's text.
 */
export function withDigestsRead<T extends JsonValue>(value: T, paths: readonly string[]): T {
  return mapPaths(value, paths, (v) => (typeof v === 'string' ? (SensitiveDigest.fromText(v) ?? v) : v));
}

/** The value with what it holds at each path shown as `shown`: for a display that holds no secret, not even as a digest. */
export function hidePaths<T extends JsonValue>(value: T, paths: readonly string[], shown: JsonValue): T {
  return mapPaths(value, paths, () => shown);
}

/**
 * The value with `at` applied to what it holds at each of the paths (diffJson's notation).
 * Only the objects and arrays on the way to a path that changes are new: every other part
 * (the whole value, without paths) is the value's own, so a masked view holds no second
 * copy of what it does not mask.
 */
export function mapPaths<T extends JsonValue>(value: T, paths: readonly string[], at: (v: JsonValue) => JsonValue): T {
  if (paths.length === 0) return value;
  const wanted = new Set(paths);
  const leadsToWanted = (path: string): boolean =>
    path === '' || paths.some((p) => p.length > path.length && p.startsWith(path) && (p[path.length] === '.' || p[path.length] === '['));
  const walk = (v: JsonValue, path: string): JsonValue => {
    if (wanted.has(path)) return at(v);
    if (!leadsToWanted(path)) return v;
    if (Array.isArray(v)) {
      const out = v.map((x, i) => walk(x, childPath(path, i)));
      return out.some((x, i) => x !== v[i]) ? out : v;
    }
    if (isObject(v)) {
      let out: { [k: string]: JsonValue } | undefined;
      for (const [k, x] of Object.entries(v)) {
        const mapped = walk(x, childPath(path, k));
        if (mapped !== x) (out ??= { ...v })[k] = mapped;
      }
      return out ?? v;
    }
    return v;
  };
  return walk(value, '') as T;
}
