import { childPath } from '../domain/json-path';
import { createHmac } from 'node:crypto';
import { isObject, type JsonObject, type JsonValue } from './json';
import { sensitivePathsOf, type KindDeclaration } from './kind-declaration';
import { secretKey } from './state/secret-key';

/**
 * Secrets are stored and compared as keyed digests (HMAC-SHA256 with the key of
 * state/secret-key.ts, over the state's lineage and the value); this prefix marks one.
 */
export const SENSITIVE_PREFIX = 'sensitive:hmac-sha256:';

/** Digests of earlier versions (plain salted SHA-256): still recognized and never shown. */
const FORMER_PREFIXES: readonly string[] = ['sensitive:sha256:'];

export function isMasked(value: unknown): boolean {
  return typeof value === 'string' && (value.startsWith(SENSITIVE_PREFIX) || FORMER_PREFIXES.some((p) => value.startsWith(p)));
}

/** The keyed digest of a secret; `key` defaults to the user's key file (a front end sharing state elsewhere passes its own). */
export function maskValue(value: JsonValue, salt: string, key: Buffer = secretKey()): string {
  if (isMasked(value)) return value as string;
  return SENSITIVE_PREFIX + createHmac('sha256', key).update(salt).update('\0').update(JSON.stringify(value)).digest('hex');
}

/**
 * Replaces the values at the given paths (diffJson's notation) by keyed digests, so two
 * masked documents compare equal exactly when their secrets are equal.
 */
export function maskPaths<T extends JsonValue>(value: T, paths: readonly string[], salt: string, key?: Buffer): T {
  if (paths.length === 0) return value;
  const wanted = new Set(paths);
  const walk = (v: JsonValue, path: string): JsonValue => {
    if (wanted.has(path)) return maskValue(v, salt, key);
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

/**
 * Every secret path of a view: those already known (declared by the stack, recorded in
 * state) and those the kind's declarations find in it, each once.
 */
export function viewSecretPaths(kind: { readonly declaration: KindDeclaration }, view: JsonObject, known: readonly string[], attributes: Readonly<Record<string, unknown>> = {}): string[] {
  return [...new Set([...known, ...observedSecretPaths(kind, view, attributes)])];
}

/**
 * Paths of a view read from the service that hold secrets, by the same declarations that
 * mark the desired view's (e.g. env entries whose names look secret), whoever wrote them.
 * `attributes` are the stack's, for secrets its code flags by name.
 */
export function observedSecretPaths(kind: { readonly declaration: KindDeclaration }, view: JsonObject, attributes: Readonly<Record<string, unknown>> = {}): string[] {
  try {
    return sensitivePathsOf(kind.declaration, view, attributes);
  } catch {
    // Attributes the declaration cannot read flag nothing: the names alone decide.
    return sensitivePathsOf(kind.declaration, view, {});
  }
}
