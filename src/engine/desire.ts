import { randomUUID } from 'node:crypto';
import { schemaProblems } from '../domain/schema-issues';
import type { z } from 'zod';
import { isObject, isUnknown, unknownValue, type JsonObject, type JsonValue } from './json';
import { sensitivePathsOf, type KindDeclaration } from './kind-declaration';
import type { Desired, KindContext, PlanProblem, ResourceKind } from './kind';
import type { StateEntry } from './state/schema';

/** One problem per refused attribute, named by its path, with the fix. */
export function attributeProblems(declaration: KindDeclaration, attributes: JsonObject, issues: readonly z.core.$ZodIssue[]): PlanProblem[] {
  const known = Object.keys(declaration.schema.shape);
  const hintAt = (keys: readonly PropertyKey[]): string | undefined => (typeof keys[0] === 'string' ? declaration.attributes[keys[0]]?.description : undefined);
  return schemaProblems(issues, attributes, { noun: 'attribute', owner: declaration.type, quote: false, known, hintAt }).map((p) => {
    const hint = p.hint ?? (p.kind === 'unknown' ? `its attributes: ${known.join(', ')}` : undefined);
    // A message the schema words itself (a refine's) reads beside the path as it is.
    return { path: p.path, message: p.kind === 'other' ? p.text : p.message, ...(hint ? { hint } : {}) };
  });
}

/** The attributes as given, with every attribute that holds secrets masked whole: what a plan may show of attributes it could not parse. */
function withSecretsHidden(declaration: KindDeclaration, attributes: JsonObject): { view: JsonObject; sensitivePaths: string[] } {
  const sensitivePaths = Object.values(declaration.attributes)
    .filter((f) => f.sensitive !== 'no' && attributes[f.name] !== undefined)
    .map((f) => f.name);
  return { view: attributes, sensitivePaths };
}

/**
 * A value not known yet goes through the attribute schemas (which check text) as this
 * text, made afresh by each process so that no value a stack gives can equal it, and
 * comes out of them unknown again.
 */
const unknownStandIn = `\u0000unknown:${randomUUID()}`;

/** `value` with every value `is` matches replaced by `to`, and whether any was. */
function replaced(value: JsonValue, is: (v: JsonValue) => boolean, to: JsonValue): { value: JsonValue; any: boolean } {
  let any = false;
  const walk = (v: JsonValue): JsonValue => {
    if (is(v)) {
      any = true;
      return to;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (isObject(v)) {
      const out: JsonObject = {};
      for (const [k, x] of Object.entries(v)) out[k] = walk(x);
      return out;
    }
    return v;
  };
  const out = walk(value);
  return { value: any ? out : value, any };
}

/** The attributes parsed by the kind's schema, values not known yet kept unknown. */
function parseAttributes(kind: ResourceKind, attributes: JsonObject) {
  const checked = replaced(attributes, isUnknown, unknownStandIn);
  const parsed = kind.declaration.schema.safeParse(checked.value);
  if (!checked.any || !parsed.success) return parsed;
  return { ...parsed, data: replaced(parsed.data as JsonValue, (v) => v === unknownStandIn, unknownValue).value as typeof parsed.data };
}

/**
 * The desired value of one resource: its attributes parsed with the kind's declared
 * schema (a refused attribute is a problem naming it), normalized by the kind, with the
 * secret paths its declaration names.
 */
export async function desireResource(kind: ResourceKind, ctx: KindContext, attributes: JsonObject, prior: StateEntry | undefined): Promise<Desired> {
  const parsed = parseAttributes(kind, attributes);
  if (!parsed.success) {
    return { ...withSecretsHidden(kind.declaration, attributes), private: {}, notes: [], problems: attributeProblems(kind.declaration, attributes, parsed.error.issues) };
  }
  const value = await kind.desire(ctx, parsed.data, prior);
  return { ...value, sensitivePaths: sensitivePathsOf(kind.declaration, value.view, parsed.data) };
}
