import { randomUUID } from 'node:crypto';
import { schemaProblems } from '../domain/schema-issues';
import type { z } from 'zod';
import { isObject, isUnknown, unknownValue, type JsonObject, type JsonValue, type Unknown } from './json';
import { sensitivePathsOf, type KindDeclaration } from './kind-declaration';
import type { Desired, KindContext, PlanProblem, ResourceKind } from './kind';
import type { StateEntry } from './state/schema';

/** One problem per refused attribute, named by its path, with the fix. */
export function attributeProblems(
  declaration: KindDeclaration,
  attributes: JsonObject,
  issues: readonly z.core.$ZodIssue[],
): PlanProblem[] {
  const known = Object.keys(declaration.schema.shape);
  const hintAt = (keys: readonly PropertyKey[]): string | undefined =>
    typeof keys[0] === 'string' ? declaration.attributes[keys[0]]?.description : undefined;
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
 * text and a number, made afresh by each process so that no value a stack gives can
 * equal it, and comes out of them as the same unknown again.
 */
const unknownStandIn = `\u0000unknown:${randomUUID()}`;

/** True when `value` holds a value not known yet. */
function holdsUnknown(value: JsonValue): boolean {
  if (isUnknown(value)) return true;
  if (Array.isArray(value)) return value.some(holdsUnknown);
  if (isObject(value)) return Object.values(value).some(holdsUnknown);
  return false;
}

/** `value` with `at` applied to each of its leaves (text, numbers, typed values...). */
function mapLeaves(value: JsonValue, at: (v: JsonValue) => JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map((v) => mapLeaves(v, at));
  if (isObject(value)) {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(value)) out[k] = mapLeaves(x, at);
    return out;
  }
  return at(value);
}

/**
 * The attributes parsed by the kind's schema, values not known yet given back as they
 * came (with their stand-ins), and whether any carries a stand-in.
 */
function parseAttributes(kind: ResourceKind, attributes: JsonObject) {
  if (!holdsUnknown(attributes)) return { parsed: kind.declaration.schema.safeParse(attributes), standIns: false };
  const unknowns: Unknown[] = [];
  const marker = `${unknownStandIn}:`;
  const checked = mapLeaves(attributes, (v) => (isUnknown(v) ? `${marker}${unknowns.push(v) - 1}` : v));
  const parsed = kind.declaration.schema.safeParse(checked);
  if (!parsed.success) return { parsed, standIns: false };
  const back = (v: JsonValue): JsonValue =>
    typeof v === 'string' && v.startsWith(marker) ? (unknowns[Number(v.slice(marker.length))] ?? unknownValue) : v;
  return {
    parsed: { ...parsed, data: mapLeaves(parsed.data as JsonValue, back) as typeof parsed.data },
    standIns: unknowns.some((u) => u.standIn !== undefined),
  };
}

/**
 * The desired value of one resource: its attributes parsed with the kind's declared
 * schema (a refused attribute is a problem naming it), normalized by the kind, with the
 * secret paths its declaration names.
 */
export async function desireResource(
  kind: ResourceKind,
  ctx: KindContext,
  attributes: JsonObject,
  prior: StateEntry | undefined,
): Promise<Desired> {
  const { parsed, standIns } = parseAttributes(kind, attributes);
  if (!parsed.success) {
    return {
      ...withSecretsHidden(kind.declaration, attributes),
      private: {},
      notes: [],
      problems: attributeProblems(kind.declaration, attributes, parsed.error.issues),
    };
  }
  const desired = await kind.desire(ctx, parsed.data, prior);
  // A stand-in serves the kind's checks only: the plan shows, and apply compares, the value as unknown.
  const value = standIns ? { ...desired, view: mapLeaves(desired.view, (v) => (isUnknown(v) ? unknownValue : v)) as JsonObject } : desired;
  return { ...value, sensitivePaths: sensitivePathsOf(kind.declaration, value.view, parsed.data) };
}
