import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { isObject, type JsonObject } from '../domain/json-value';
import { readPlanValuesText, type StateEntry, withDigestsRead } from '../engine/provider-core';

/**
 * What the provider keeps beside an object's attributes in Terraform's state (the
 * resource's private bytes): the engine's record of it, as fleetform's own state holds it.
 */
const ResourcePrivateSchema = z
  .object({
    ids: z.record(z.string(), z.string()),
    outputs: z.record(z.string(), z.string()),
    /** The kind's own data (e.g. the versions unpinned modules were pinned to). */
    kind_private: z.custom<JsonObject>(isObject).default({}),
    /** The view last applied, secrets as keyed digests: what the service should hold. */
    applied: z.custom<JsonObject>(isObject).nullable().default(null),
    sensitive_paths: z.array(z.string()).default([]),
    /** Salt of the digests of this object's secrets. */
    salt: z.string(),
    /** The service's version of the object when last read: guards an update planned from it. */
    version: z.string().nullable().default(null),
  })
  // The bytes hold secrets' digests as text: read back as digests at the paths recorded as secret.
  .transform((p) => (p.applied && p.sensitive_paths.length > 0 ? { ...p, applied: withDigestsRead(p.applied, p.sensitive_paths) } : p));
export type ResourcePrivate = z.infer<typeof ResourcePrivateSchema>;

export function newSalt(): string {
  return randomBytes(16).toString('hex');
}

/** Reads private bytes (a value the object only stands for kept unknown, see planValuesText); empty or foreign bytes are none. */
export function readPrivate(bytes: Uint8Array): ResourcePrivate | undefined {
  if (bytes.length === 0) return undefined;
  try {
    const parsed = ResourcePrivateSchema.safeParse(readPlanValuesText(Buffer.from(bytes).toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export function writePrivate(p: ResourcePrivate): Uint8Array<ArrayBuffer> {
  // An unknown is written as its tag (Unknown.toJSON), read back as unknown; digests as their text.
  return new Uint8Array(Buffer.from(JSON.stringify(p), 'utf8'));
}

/** The engine's state entry of an object Terraform manages. */
export function stateEntry(type: string, p: ResourcePrivate): StateEntry {
  return {
    type,
    ids: { ...p.ids },
    outputs: { ...p.outputs },
    attributes: p.applied,
    dependencies: [],
    private: p.kind_private,
    sensitive_paths: [...p.sensitive_paths],
    status: 'ok',
  };
}
