import type { TerraformResource } from './cdk';

/** A resource's Terraform JSON: `{ resource: { <type>: { <logical id>: attributes } } }`. */
export type ResourceFragment = { resource: Record<string, Record<string, Record<string, unknown>>> };

/**
 * Whether a resource uses none of the features cdktf adds to a resource's Terraform JSON
 * (meta-arguments such as `dependsOn` or `lifecycle`, provisioners, overrides, imports,
 * moves): its JSON then holds only its own attributes and the construct metadata, and
 * what cdktf adds for those features (keys left undefined) can be left out.
 */
export function usesNoResourceFeatures(resource: TerraformResource, metadata: Record<string, unknown>): boolean {
  if (resource.provisioners !== undefined) return false;
  // `importFrom(id)` asks for an import block, which only cdktf's own rendering writes.
  if (Reflect.get(resource, '_imported') !== undefined) return false;
  for (const value of Object.values(metadata)) if (value !== undefined) return false;
  for (const value of Object.values(resource.terraformMetaArguments)) if (value !== undefined) return false;
  return true;
}

/**
 * The Terraform JSON cdktf makes of a resource that uses no resource features (see
 * usesNoResourceFeatures): its attributes with the construct metadata under `//`, without
 * the keys cdktf would set to undefined. The same JSON once resolved, with less for the
 * resolver to walk (it walks every key of every resource, twice per synth).
 */
export function plainResourceFragment(
  resource: TerraformResource,
  attributes: Readonly<Record<string, unknown>>,
  constructMetadata: Readonly<Record<string, unknown>>,
): ResourceFragment {
  const comment = { ...((attributes['//'] ?? {}) as Record<string, unknown>), ...constructMetadata };
  return { resource: { [resource.terraformResourceType]: { [resource.friendlyUniqueId]: { ...attributes, '//': comment } } } };
}
