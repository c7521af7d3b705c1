import type { IConstruct } from 'constructs';
import { TerraformStack } from './cdk';

/** A character Terraform does not allow in a resource name. */
const DISALLOWED = /[^A-Za-z0-9_-]/g;
/** How a resource name Terraform allows starts. */
const ALLOWED_START = /^[A-Za-z_]/;

/** Whether an id is a resource name Terraform allows as it is (the rules below leave it unchanged). */
function isTerraformName(id: string): boolean {
  DISALLOWED.lastIndex = 0;
  return ALLOWED_START.test(id) && !DISALLOWED.test(id);
}

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
  if (scope !== undefined && TerraformStack.isStack(scope) && isTerraformName(id)) return id;
  const stack = TerraformStack.of(construct);
  const scopes = construct.node.scopes;
  const parts = scopes.slice(scopes.indexOf(stack) + 1).map((c) => c.node.id);
  const joined = parts.join('_').replace(DISALLOWED, '_');
  return ALLOWED_START.test(joined) ? joined : `_${joined}`;
}
