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
  /** Terraform hides the value in its output; true too when only parts of it are secret. */
  readonly sensitive: boolean;
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

function attributeOf(f: AttributeFacts): TerraformAttribute {
  return {
    name: f.name,
    type: f.type,
    description: f.serviceDefault ? `${f.description} Default: ${f.serviceDefault}.` : f.description,
    required: f.presence === 'required',
    optional: f.presence === 'optional' || f.presence === 'optional-computed',
    computed: f.presence === 'computed' || f.presence === 'optional-computed',
    sensitive: f.sensitive !== 'no',
  };
}

/** The Terraform schema of a kind, derived from its declaration. */
export function terraformResourceSchema(declaration: KindDeclaration): TerraformResourceSchema {
  const facts = Object.values(declaration.attributes);
  return {
    type: declaration.type,
    version: declaration.schemaVersion,
    description: declaration.description,
    attributes: facts.map(attributeOf),
    requiresReplace: facts.filter((f) => f.forcesReplacement).map((f) => f.name),
  };
}
