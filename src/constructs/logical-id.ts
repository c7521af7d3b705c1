import type { IConstruct } from 'constructs';
import { TerraformStack } from './cdk';

/** A resource name Terraform allows: what the rules below make of an id that already is one. */
const TERRAFORM_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * Readable, stable logical ids: the construct ids below the stack joined with `_`, with
 * every character Terraform does not allow in a resource name replaced by `_`, and a
 * leading `_` when the id would start with a digit or `-`. `warehouse/picker-1` is
 * `picker-1`; `warehouse/line-a/picker 1` is `line-a_picker_1`. Different paths can map
 * to one id (`a_b/c` and `a/b_c`): the validation reports such collisions.
 */
export function logicalIdFor(construct: IConstruct): string {
  // Most resources are declared in their stack under an id Terraform takes as it is: that id.
  const { scope, id } = construct.node;
  if (scope !== undefined && TerraformStack.isStack(scope) && TERRAFORM_NAME.test(id)) return id;
  const stack = TerraformStack.of(construct);
  const scopes = construct.node.scopes;
  const parts = scopes.slice(scopes.indexOf(stack) + 1).map((c) => c.node.id);
  const joined = parts.join('_').replace(/[^A-Za-z0-9_-]/g, '_');
  return /^[A-Za-z_]/.test(joined) ? joined : `_${joined}`;
}
