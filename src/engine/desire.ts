import { childPath, pathOf } from '../domain/json-path';
import type { z } from 'zod';
import { nearestName } from '../domain/suggest';
import type { JsonObject } from './json';
import { sensitivePathsOf, type KindDeclaration } from './kind-declaration';
import type { Desired, KindContext, PlanProblem, ResourceKind } from './kind';
import type { StateEntry } from './state/schema';

/** One problem per refused attribute, named by its path, with the fix. */
export function attributeProblems(declaration: KindDeclaration, attributes: JsonObject, issues: readonly z.core.$ZodIssue[]): PlanProblem[] {
  const known = Object.keys(declaration.schema.shape);
  return issues.flatMap((issue): PlanProblem[] => {
    const at = pathOf(issue.path);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => {
        const near = nearestName(key, known);
        return { path: childPath(at, key), message: `${declaration.type} has no attribute ${key}`, hint: near ? `did you mean ${near}?` : `its attributes: ${known.join(', ')}` };
      });
    }
    const top = issue.path[0];
    if (issue.code === 'invalid_type' && issue.path.length === 1 && typeof top === 'string' && attributes[top] === undefined) {
      return [{ path: at, message: `${at} is required`, hint: declaration.attributes[top]?.description }];
    }
    const hint = typeof top === 'string' ? declaration.attributes[top]?.description : undefined;
    return [{ path: at, message: issue.code === 'invalid_type' ? `${at}: expected ${issue.expected}` : issue.message, ...(hint ? { hint } : {}) }];
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
