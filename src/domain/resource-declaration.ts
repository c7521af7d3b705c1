import type { z } from 'zod';

/** Secrets inside an attribute's value (e.g. secret env entries inside a machine's config). */
export interface SensitiveParts {
  /** Which parts are secret, as the reference docs say it. */
  readonly describe: string;
  /** Paths (diffJson's notation) of the secret parts in the desired view of the resource. */
  paths(view: { readonly [name: string]: unknown }, attributes: Readonly<Record<string, unknown>>): readonly string[];
}

/**
 * How one attribute of a resource is declared: its zod schema and every fact of it that
 * validation, plan, masking, the provider's schema, the construct and the docs use.
 */
export interface AttributeDeclaration<S extends z.ZodType = z.ZodType> {
  /** The rule of the value code gives (optional when code may leave it out); for a computed one, of what the service gives. */
  readonly schema: S;
  /** One sentence for the reference docs, the provider schema and the construct's errors. */
  readonly description: string;
  /** `always`: only the service sets it (an id); `when-unset`: the service or fleetform fills it when code leaves it out. */
  readonly computed?: 'always' | 'when-unset';
  /** `true`: the whole value is secret; parts: only what `paths` names is. Secrets are masked in plans, logs and state. */
  readonly sensitive?: true | SensitiveParts;
  /** A different value cannot be applied in place: the object is replaced. */
  readonly forcesReplacement?: boolean;
  /** What is used when code leaves the attribute out, as the docs and the construct say it. */
  readonly serviceDefault?: string;
  /**
   * The value the desired view holds when code leaves the choice to the service (its
   * "unspecified"): a new object's plan shows the attribute as known after apply, and
   * what the service then chose is a fact of the object, not drift. Only for an attribute
   * computed `when-unset`.
   */
  readonly serviceChoosesWhen?: string | number | boolean;
  /**
   * fleetform's own setting, never sent to the service: a difference in it alone changes
   * nothing there, so a kind whose objects cannot change does not refuse it.
   */
  readonly ignoredForChanges?: true;
  /**
   * Only for an attribute computed `always`: the service gives it a new value at every
   * update (a revision), so a plan that updates the object shows it, and every reference
   * to it, as known after apply.
   */
  readonly changesOnUpdate?: true;
  /**
   * Only for an attribute computed `always`: the service changes it on its own, between
   * writes (a training job's status), so every read of the object refreshes it and a plan
   * that writes the object shows it as known after apply.
   */
  readonly observed?: true;
}

export type AttributeDeclarations = { readonly [name: string]: AttributeDeclaration };

/** A resource kind as both its construct and the engine know it: type, description and attributes. */
export interface ResourceDeclaration<A extends AttributeDeclarations = AttributeDeclarations> {
  /** The synthesized resource type, e.g. `fleetform_dataset`. */
  readonly type: `fleetform_${string}`;
  /** One paragraph for the reference docs and the provider schema. */
  readonly description: string;
  /** Version of the attribute layout; raised when stored state must be upgraded. */
  readonly schemaVersion?: number;
  /** Terraform (HCL) of the resource in use, shown under its table in the reference docs. */
  readonly example?: string;
  /** Every attribute, in the order docs, schemas and synthesized resources list them. */
  readonly attributes: A;
}

/** Declares a resource once, keeping each attribute's schema type for the construct and the engine. */
export function declareResource<const A extends AttributeDeclarations>(declaration: ResourceDeclaration<A>): ResourceDeclaration<A> {
  return declaration;
}

/** The names of the attributes code gives: every declared one but those only the service sets. */
export type InputKeys<A extends AttributeDeclarations> = {
  [K in keyof A]: A[K] extends { readonly computed: 'always' } ? never : K;
}[keyof A] &
  string;

type Output<D> = D extends { readonly schema: infer S extends z.ZodType } ? z.output<S> : never;

/** The input attributes always present in a view: required ones and those filled when unset. */
type FilledKeys<A extends AttributeDeclarations> = {
  [K in InputKeys<A>]: A[K] extends { readonly computed: 'when-unset' } ? K : undefined extends Output<A[K]> ? never : K;
}[InputKeys<A>];

/**
 * The view of a resource as its kind compares it (desired and observed alike): every
 * attribute code gives, those filled when unset always present, the other optional ones
 * absent or null when unset.
 */
export type ResourceView<A extends AttributeDeclarations> = { [K in FilledKeys<A>]: NonNullable<Output<A[K]>> } & {
  [K in Exclude<InputKeys<A>, FilledKeys<A>>]?: NonNullable<Output<A[K]>> | null;
};
