import { childPath } from '../domain/json-path';
import { createHmac } from 'node:crypto';
import { isObject, isSensitiveDigest, isUnknown, SensitiveDigest, type JsonObject, type JsonValue } from './json';
import { sensitivePathsOf, type KindDeclaration } from './kind-declaration';
import { processRedactor } from './redactor';
import { secretKey } from './state/secret-key';

/**
 * Secrets are stored and compared as keyed digests (HMAC-SHA256 with the key of
 * state/secret-key.ts, over the state's lineage and the value), typed `SensitiveDigest`;
 * digests of earlier versions (plain salted SHA-256) are still read and never shown.
 */
export function isMasked(value: unknown): value is SensitiveDigest {
  return isSensitiveDigest(value);
}

/**
 * The keyed digest of a secret; `key` defaults to the user's key file (a front end sharing
 * state elsewhere passes its own). A digest stays as it is, and so does a value not known yet.
 */
export function maskValue(value: JsonValue, salt: string, key: Buffer = secretKey()): JsonValue {
  if (isSensitiveDigest(value) || isUnknown(value)) return value;
  // A value masked here is a secret this process has read: no text it sends out shows it.
  processRedactor.addValue(value);
  return SensitiveDigest.of('hmac-sha256', createHmac('sha256', key).update(salt).update('\0').update(JSON.stringify(value)).digest('hex'));
}

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
function mapPaths<T extends JsonValue>(value: T, paths: readonly string[], at: (v: JsonValue) => JsonValue): T {
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

/**
 * Replaces the values at the given paths (diffJson's notation) by keyed digests, so two
 * masked documents compare equal exactly when their secrets are equal.
 */
export function maskPaths<T extends JsonValue>(value: T, paths: readonly string[], salt: string, key?: Buffer): T {
  return mapPaths(value, paths, (v) => maskValue(v, salt, key));
}

/**
 * Every secret path of a view: those already known (declared by the stack, recorded in
 * state) and those the kind's declarations find in it, each once.
 */
export function viewSecretPaths(
  kind: { readonly declaration: KindDeclaration },
  view: JsonObject,
  known: readonly string[],
  attributes: Readonly<Record<string, unknown>> = {},
): string[] {
  return [...new Set([...known, ...observedSecretPaths(kind, view, attributes)])];
}

/**
 * Paths of a view read from the service that hold secrets, by the same declarations that
 * mark the desired view's (e.g. env entries whose names look secret), whoever wrote them.
 * `attributes` are the stack's, for secrets its code flags by name.
 */
export function observedSecretPaths(
  kind: { readonly declaration: KindDeclaration },
  view: JsonObject,
  attributes: Readonly<Record<string, unknown>> = {},
): string[] {
  try {
    return sensitivePathsOf(kind.declaration, view, attributes);
  } catch {
    // Attributes the declaration cannot read flag nothing: the names alone decide.
    return sensitivePathsOf(kind.declaration, view, {});
  }
}
