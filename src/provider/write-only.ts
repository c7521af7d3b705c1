import { createHash, createHmac } from 'node:crypto';
import { digestName, type KindDeclaration, stableStringify, writeOnlyAttributes } from '../engine/provider-core';
import { hasUnknown, unknownValue, type TerraformObject, type TerraformValue } from './values/terraform-value';

/** The digest key: derived from the API key the team's runs share, so every runner computes the same digests. */
export function digestKey(apiKey: string): Buffer {
  return createHash('sha256').update('fleetform terraform write-only digests\0').update(apiKey).digest();
}

/** The digest of a write-only value: null when unset, unknown when the value is. */
export function digestOf(value: TerraformValue | undefined, key: Buffer, salt: string): TerraformValue {
  if (value === null || value === undefined) return null;
  if (hasUnknown(value)) return unknownValue;
  // Object keys sorted: equal secrets give equal digests.
  return `hmac-sha256:${createHmac('sha256', key).update(salt).update('\0').update(stableStringify(value)).digest('hex')}`;
}

/**
 * The state Terraform keeps: each secret's digest of the given values, and the secret
 * itself null when the client takes write-only attributes (Terraform 1.11 and later); a
 * client that does not (it ignores the flag) keeps it as a sensitive attribute.
 */
export function withoutWriteOnly(
  declaration: KindDeclaration,
  state: TerraformObject,
  values: TerraformObject,
  key: Buffer,
  salt: string,
  writeOnly = true,
): TerraformObject {
  const out: TerraformObject = { ...state };
  for (const f of writeOnlyAttributes(declaration)) {
    out[digestName(f)] = digestOf(values[f.name] ?? null, key, salt);
    if (writeOnly) out[f.name] = null;
  }
  return out;
}

/** Planned or stored attributes with the write-only values of the configuration put back, for the kinds' handlers. */
export function withWriteOnlyFrom(declaration: KindDeclaration, state: TerraformObject, config: TerraformObject | null): TerraformObject {
  const out: TerraformObject = { ...state };
  for (const f of writeOnlyAttributes(declaration)) out[f.name] = config?.[f.name] ?? null;
  return out;
}

/**
 * The salt of a new object's digests: a digest of its type and of its configuration but the
 * write-only secrets, so two plans of one create agree; undefined while any of it is unknown.
 */
export function creationSalt(declaration: KindDeclaration, type: string, config: TerraformObject): string | undefined {
  const secret = new Set(writeOnlyAttributes(declaration).map((f) => f.name));
  const rest: TerraformObject = {};
  for (const [k, v] of Object.entries(config)) if (!secret.has(k)) rest[k] = v;
  if (hasUnknown(rest)) return undefined;
  return createHash('sha256').update(type).update('\0').update(stableStringify(rest)).digest('hex').slice(0, 32);
}
