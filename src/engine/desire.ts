import { schemaProblems } from '../domain/schema-issues';
import type { z } from 'zod';
import type { JsonObject } from './json';
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
 * The desired value of one resource: its attributes parsed with the kind's declared
 * schema (a refused attribute is a problem naming it), normalized by the kind, with the
 * secret paths its declaration names.
 */
export async function desireResource(kind: ResourceKind, ctx: KindContext, attributes: JsonObject, prior: StateEntry | undefined): Promise<Desired> {
  const parsed = kind.declaration.schema.safeParse(attributes);
  if (!parsed.success) {
    return { ...withSecretsHidden(kind.declaration, attributes), private: {}, notes: [], problems: attributeProblems(kind.declaration, attributes, parsed.error.issues) };
  }
  const value = await kind.desire(ctx, parsed.data, prior);
  return { ...value, sensitivePaths: sensitivePathsOf(kind.declaration, value.view, parsed.data) };
}
