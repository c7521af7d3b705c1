import { createHmac } from 'node:crypto';
import { isSensitiveDigest, isUnknown, SensitiveDigest, type JsonObject, type JsonValue } from './json';
import { sensitivePathsOf, type KindDeclaration } from './kind-declaration';
import { processRedactor } from './redactor';
import { secretKey } from './state/secret-key';
import { mapPaths } from './path-values';

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
