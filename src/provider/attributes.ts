import { isObject, type JsonObject, type JsonValue } from '../domain/json-value';
import { isUnknown } from '../domain/plan-values';
import { type AttributeFacts, type KindDeclaration, terraformResourceSchema, type TerraformType } from '../engine/provider-core';
import { conform, type TerraformObject, type TerraformValue } from './values/terraform-value';

/** The Terraform object type of a kind's attributes. */
export function objectType(declaration: KindDeclaration): TerraformType {
  const fields: Record<string, TerraformType> = {};
  for (const a of terraformResourceSchema(declaration).attributes) fields[a.name] = a.type;
  return ['object', fields];
}

function toEngine(value: TerraformValue): JsonValue {
  if (isUnknown(value)) return value;
  if (Array.isArray(value)) return value.map(toEngine);
  if (value !== null && typeof value === 'object') {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) out[k] = toEngine(v);
    return out;
  }
  return value;
}

/**
 * The attributes code gives, as the engine's kinds read them: null (unset) left out, the
 * service's own attributes left out, unknown values unknown.
 */
export function engineAttributes(declaration: KindDeclaration, value: TerraformObject): JsonObject {
  const out: JsonObject = {};
  for (const f of Object.values(declaration.attributes)) {
    const v = value[f.name];
    if (f.presence === 'computed' || v === null || v === undefined) continue;
    out[f.name] = toEngine(v);
  }
  return out;
}

/** The Terraform value of an attribute from an engine value (a view's or the service's), unknown as unknown. */
export function terraformAttribute(facts: AttributeFacts, value: JsonValue | undefined): TerraformValue {
  if (value === undefined) return null;
  return conform(value, facts.type, facts.name);
}

/** True when a value (or anything in it) is unknown. */
export function isEngineUnknown(value: JsonValue | undefined): boolean {
  if (isUnknown(value)) return true;
  if (Array.isArray(value)) return value.some(isEngineUnknown);
  if (isObject(value)) return Object.values(value).some(isEngineUnknown);
  return false;
}
