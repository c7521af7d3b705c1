import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { FleetformError } from '../../domain/errors';
import { schemaProblems } from '../../domain/schema-issues';
import { isObject, type JsonObject, type JsonValue } from '../json';
import { withDigestsRead } from '../path-values';
import { PromotionRecordSchema } from '../../domain/model-promotion';

/**
 * An object of JSON values. State is read with JSON.parse, so its values are JSON by
 * construction: only the shape is checked, and the object is kept as read (a deep
 * `z.json()` check copied every attribute of every resource on each read).
 */
const JsonObjectSchema = z.custom<JsonObject>(isObject, { message: 'expected an object' });

/** One managed resource as recorded after apply. */
export const StateEntrySchema = z
  .object({
    type: z.string(),
    /** Remote identifiers the handler needs to observe, update and delete the object. */
    ids: z.record(z.string(), z.string()),
    /** Values other resources may reference as `${type.name.key}` (e.g. `id`). */
    outputs: z.record(z.string(), z.string()),
    /** The attributes last applied (secrets stored as salted hashes); null when a create was interrupted. */
    attributes: JsonObjectSchema.nullable(),
    dependencies: z.array(z.string()).default([]),
    /** Handler-owned data kept between runs (e.g. the version a module was pinned to). */
    private: JsonObjectSchema.default({}),
    /** Attribute paths holding secrets (their values are stored as salted hashes). */
    sensitive_paths: z.array(z.string()).default([]),
    /**
     * `deleting`: removed from code, deletion started but not finished (e.g. a canceled job).
     * `creating`: a create was about to be made (ids empty, `private.intent` names the object
     * on the service); the next plan finds and adopts what it made, if anything.
     */
    status: z.enum(['ok', 'deleting', 'creating']).default('ok'),
  })
  // A state's text holds secrets' digests as text: read back as digests at the paths recorded as secret.
  .transform((entry) =>
    entry.attributes && entry.sensitive_paths.length > 0
      ? { ...entry, attributes: withDigestsRead(entry.attributes, entry.sensitive_paths) }
      : entry,
  );
export type StateEntry = z.infer<typeof StateEntrySchema>;

/** An output as the last apply evaluated it; a sensitive one keeps no value. */
export const StateOutputSchema = z.object({
  value: z.custom<JsonValue>(() => true).nullable(),
  sensitive: z.boolean(),
  /** False when the value refers to something fleetform does not know (another provider's resource). */
  known: z.boolean(),
});
export type StateOutput = z.infer<typeof StateOutputSchema>;

export const StateSchema = z.object({
  format_version: z.literal(1),
  stack: z.string(),
  lineage: z.string(),
  serial: z.number().int().nonnegative(),
  resources: z.record(z.string(), StateEntrySchema),
  /** The stack's outputs after the last apply. */
  outputs: z.record(z.string(), StateOutputSchema).optional(),
  /** Each promoted model's history by model name: the versions promoted and rejected, with the evidence. */
  promotions: z.record(z.string(), PromotionRecordSchema).optional(),
});
export type State = z.infer<typeof StateSchema>;

/** A recorded state entry read from `where` (a row of the state log): one the schema refuses is an error naming the value. */
export function recordedEntry(parsed: unknown, where: string): StateEntry {
  const result = StateEntrySchema.safeParse(parsed);
  if (result.success) return result.data;
  const [problem] = schemaProblems(result.error.issues, parsed, { noun: 'key' });
  throw new FleetformError(`${where} is not a state entry: ${problem?.message ?? 'invalid'}`, {
    path: problem ? `${where}#${problem.path}` : where,
    hint: 'restore the state from a database backup, or remove its row of the state log and import what it recorded',
  });
}

/**
 * A state document read from `where` (a file, a database row), checked against the schema:
 * one that is not a fleetform state is an error naming the first refused value.
 */
export function stateDocument(parsed: unknown, what: string, where: string): State {
  const result = StateSchema.safeParse(parsed);
  if (result.success) return result.data;
  const [problem] = schemaProblems(result.error.issues, parsed, { noun: 'key' });
  throw new FleetformError(`${what} is not a fleetform state: ${problem?.message ?? 'invalid'}`, {
    path: problem ? `${where}#${problem.path}` : where,
    hint: 'it may come from a newer fleetform, or have been edited by hand',
  });
}

export const LockInfoSchema = z.object({
  id: z.string(),
  operation: z.string(),
  who: z.string(),
  created: z.string(),
  pid: z.number().int(),
  host: z.string().optional(),
  /** When the holder process started (ms since the epoch): tells a reused pid from the holder. */
  process_start: z.number().optional(),
  command: z.string().optional(),
});
export type LockInfo = z.infer<typeof LockInfoSchema>;

/** An empty state for a stack, with a fresh lineage. */
export function emptyState(stack: string): State {
  return { format_version: 1, stack, lineage: randomUUID(), serial: 0, resources: {} };
}
