import { SECRET_REFERENCES_ATTRIBUTE } from '../domain/secret-reference';
import type { AttributeFacts, KindDeclaration, TerraformType } from './kind-declaration';

/** One attribute of a resource schema as Terraform's plugin protocol describes it. */
export interface TerraformAttribute {
  readonly name: string;
  /** JSON of the type, as the protocol's `type` bytes hold it, e.g. `["list","string"]`. */
  readonly type: TerraformType;
  readonly description: string;
  readonly required: boolean;
  readonly optional: boolean;
  readonly computed: boolean;
  /** Terraform hides the whole value in its output: only for attributes secret as a whole (see attributeOf). */
  readonly sensitive: boolean;
  /** Given in configuration only, never kept in Terraform's plan or state (see writeOnlyAttributes). */
  readonly writeOnly: boolean;
}

/** A resource type's schema for a Terraform provider: its block's attributes and the paths that force replacement. */
export interface TerraformResourceSchema {
  readonly type: string;
  readonly version: number;
  readonly description: string;
  readonly attributes: readonly TerraformAttribute[];
  /** Attribute names whose change replaces the object (PlanResourceChange's requires_replace). */
  readonly requiresReplace: readonly string[];
}

/**
 * Terraform marks only whole attributes sensitive, so only an attribute secret as a whole
 * is. One with secret parts (a machine's `config`, whose view holds its modules' secret env)
 * is not: those parts come from other attributes that are sensitive as a whole (the
 * machine's `secret_env`), so code never gives a secret inside it and Terraform's plan can
 * show it, and diff it, in the clear.
 */
function attributeOf(f: AttributeFacts): TerraformAttribute {
  return {
    name: f.name,
    type: f.type,
    description: f.serviceDefault ? `${f.description} Default: ${f.serviceDefault}.` : f.description,
    required: f.presence === 'required',
    optional: f.presence === 'optional' || f.presence === 'optional-computed',
    computed: f.presence === 'computed' || f.presence === 'optional-computed',
    sensitive: f.sensitive === 'whole',
    writeOnly: isWriteOnly(f),
  };
}

/**
 * An attribute that code gives and that is secret as a whole is write-only under
 * Terraform: given in configuration, never kept in Terraform's plan or state. Beside it a
 * computed `<name>_digest` holds a keyed digest of its value, so a changed secret still
 * shows as a change (and a drifted one as drift) without the secret itself.
 */
function isWriteOnly(f: AttributeFacts): boolean {
  return f.sensitive === 'whole' && f.presence !== 'computed';
}

export function writeOnlyAttributes(declaration: KindDeclaration): AttributeFacts[] {
  return Object.values(declaration.attributes).filter(isWriteOnly);
}

/** The name of the computed digest that stands for a write-only attribute. */
export function digestName(facts: AttributeFacts): string {
  return `${facts.name}_digest`;
}

function digestAttributeOf(f: AttributeFacts): TerraformAttribute {
  return {
    name: digestName(f),
    type: 'string',
    description: `Keyed digest of ${f.name}: changes when it changes (${f.name} itself is write-only).`,
    required: false,
    optional: false,
    computed: true,
    sensitive: false,
    writeOnly: false,
  };
}

/**
 * A kind whose secrets are given by reference (its `secrets` attribute) gets a computed
 * `secrets_digest`: a keyed digest of the values the references name, read where Terraform
 * runs, so a new secret behind an unchanged reference is a change Terraform sees.
 */
export function referenceDigestAttributes(declaration: KindDeclaration): TerraformAttribute[] {
  const refs = declaration.attributes[SECRET_REFERENCES_ATTRIBUTE];
  if (!refs) return [];
  return [
    {
      name: digestName(refs),
      type: 'string',
      description: `Keyed digest of the values the ${refs.name} references name: changes when one of them does (the values are never kept).`,
      required: false,
      optional: false,
      computed: true,
      sensitive: false,
      writeOnly: false,
    },
  ];
}

/** The Terraform schema of a kind, derived from its declaration. */
export function terraformResourceSchema(declaration: KindDeclaration): TerraformResourceSchema {
  const facts = Object.values(declaration.attributes);
  return {
    type: declaration.type,
    version: declaration.schemaVersion,
    description: declaration.description,
    attributes: [
      ...facts.map(attributeOf),
      ...writeOnlyAttributes(declaration).map(digestAttributeOf),
      ...referenceDigestAttributes(declaration),
    ],
    requiresReplace: facts.filter((f) => f.forcesReplacement).map((f) => f.name),
  };
}
