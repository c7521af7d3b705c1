import { createHmac } from 'node:crypto';
import { pathKeys, SECRET_REFERENCES_ATTRIBUTE } from '../domain/secret-reference';
import { digestName, type KindDeclaration, referencedViewPaths, stableStringify } from '../engine/provider-core';
import { isObject, type JsonObject, type JsonValue } from '../domain/json-value';
import { isUnknown } from '../domain/plan-values';
import { unknownValue, type TerraformObject, type TerraformValue } from './values/terraform-value';

/**
 * Secrets by reference under Terraform: the configuration, plan and state hold only the
 * references; the provider reads the values where Terraform runs (its environment and
 * files) and keeps, in `secrets_digest`, a keyed digest of them, so a new value behind an
 * unchanged reference, or one changed on the service, is a change Terraform plans.
 */

/** The value at a path of a view (keyed as plans name fields), or undefined. */
function valueAt(view: JsonObject, path: string): JsonValue | undefined {
  let node: JsonValue | undefined = view;
  for (const key of pathKeys(path) ?? []) {
    if (Array.isArray(node) && typeof key === 'number') node = node[key];
    else if (isObject(node) && typeof key === 'string') node = node[key];
    else return undefined;
  }
  return node;
}

/**
 * The digest of the values a view holds at the paths the attributes' references name:
 * null without references, unknown while the view's config or the salt is.
 */
export function referenceDigest(
  view: JsonObject,
  attributes: Readonly<Record<string, unknown>>,
  key: Buffer,
  salt: string | undefined,
): TerraformValue {
  const paths = referencedViewPaths(attributes).sort();
  if (paths.length === 0) return null;
  if (salt === undefined || isUnknown(view.config) || view.config === undefined) return unknownValue;
  const values = paths.map((p) => [p, valueAt(view, p) ?? null]);
  return `hmac-sha256:${createHmac('sha256', key).update(salt).update('\0references\0').update(stableStringify(values)).digest('hex')}`;
}

/** The state with the reference digest of a kind that takes references set (others are given back as they are). */
export function withReferenceDigest(
  declaration: KindDeclaration,
  state: TerraformObject,
  view: JsonObject,
  attributes: Readonly<Record<string, unknown>>,
  key: Buffer,
  salt: string | undefined,
): TerraformObject {
  const refs = declaration.attributes[SECRET_REFERENCES_ATTRIBUTE];
  if (!refs) return state;
  return { ...state, [digestName(refs)]: referenceDigest(view, attributes, key, salt) };
}
