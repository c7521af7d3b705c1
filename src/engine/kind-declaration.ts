import type { z } from 'zod';

/** The Terraform type of an attribute, as a provider schema writes it. */
export type AttributeType =
  | 'string'
  | 'number'
  | 'bool'
  | { readonly list: 'string' | 'number' | 'bool' }
  | { readonly map: 'string' | 'number' | 'bool' };

/**
 * Who sets an attribute: `required` and `optional` come from code; `computed` only from
 * the service (e.g. an id); `optional-computed` from code, or from the service or the
 * provider's defaults when code leaves it out (e.g. a machine's location).
 */
export type AttributePresence = 'required' | 'optional' | 'computed' | 'optional-computed';

/** What a kind declares of one attribute: the facts Terraform's schema holds, once. */
export interface AttributeFacts {
  readonly type: AttributeType;
  readonly presence: AttributePresence;
  /** The value is a secret: masked in plans, logs and state, never shown in clear. */
  readonly sensitive?: boolean;
  /** A different value cannot be applied in place: the object is replaced. */
  readonly forcesReplacement?: boolean;
  /** One sentence for the reference docs and the provider schema. */
  readonly description: string;
  /** What the service (or fleetform) uses when code leaves the attribute out, as the docs show it. */
  readonly serviceDefault?: string;
}

/**
 * A resource kind's declaration: its synthesized type, a zod schema of the attributes
 * code gives it, and the facts of every attribute (those code gives and the computed
 * ones). Validation, plan (replace reasons), state masking, the provider schema and the
 * reference docs are all derived from it.
 */
export interface KindDeclaration<Schema extends z.ZodObject = z.ZodObject> {
  /** The synthesized resource type, e.g. `fleetform_machine`. */
  readonly type: string;
  /** One paragraph for the reference docs and the provider schema. */
  readonly description: string;
  /** The attributes code gives (what `desire` receives), parsed and typed. */
  readonly schema: Schema;
  /** Facts of each attribute: every key of `schema`, plus the computed ones. */
  readonly attributes: Readonly<Record<string, AttributeFacts>>;
  /** Version of the attribute layout; raised when stored state must be upgraded. */
  readonly schemaVersion: number;
}
