import { FleetformError } from '../../domain/errors';
import { unevaluatedExpression } from '../../domain/terraform-expressions';
import { unescapeTemplate } from '../../domain/template-escape';
import { isObject, setOwn, Unknown, unknownValue, type JsonObject, type JsonValue } from '../json';

/**
 * Read left to right as Terraform reads a JSON-syntax string: a `$${` or `%%{` escape (a
 * literal `${` or `%{`), or `${fleetform_dataset.boxes.id}`, a reference to another
 * resource's output (`${fleetform_machine.arm[0].id}` or `["key"]` for one instance of a
 * resource with count or for_each). A `${environment.HOME}` of older synthesized output is
 * literal text; any other expression is refused when the stack is read (refuseUnevaluated).
 */
const REFERENCE_OR_ESCAPE = /\$\$\{|%%\{|\$\{(fleetform_[a-z_]+)\.([A-Za-z0-9_-]+(?:\[\d+\]|\["[^"\]]*"\])?)\.([A-Za-z0-9_]+)\}/g;

export interface Reference {
  readonly address: string;
  readonly output: string;
}

/** Whether a string may hold a reference or an escape. */
function mayHoldTemplate(s: string): boolean {
  return s.includes('${') || s.includes('%%{');
}

/** Every resource reference inside a value, at any depth. `$${...}` is an escaped literal. */
export function findReferences(value: JsonValue): Reference[] {
  const found: Reference[] = [];
  const visit = (v: JsonValue): void => {
    if (typeof v === 'string') {
      if (!mayHoldTemplate(v)) return;
      for (const m of v.matchAll(REFERENCE_OR_ESCAPE)) {
        if (m[1] !== undefined) found.push({ address: `${m[1]}.${m[2]}`, output: m[3] as string });
      }
    } else if (Array.isArray(v)) v.forEach(visit);
    else if (isObject(v)) Object.values(v).forEach(visit);
  };
  visit(value);
  return found;
}

/**
 * Replaces references with the outputs they point at, and the escapes `$${` and `%%{` with
 * `${` and `%{` (in object keys too, which Terraform also reads as templates).
 * A reference whose value is not known yet makes the whole string unknown (`unknownValue`).
 */
export function resolveReferences(
  value: JsonValue,
  lookup: (ref: Reference) => string | undefined,
  /** What stands in, at plan, for an output not known yet (an object this apply creates): the unknown text then carries its stand-in. */
  standIn?: (ref: Reference) => string | undefined,
): JsonValue {
  if (typeof value === 'string') {
    if (!mayHoldTemplate(value)) return value;
    let unknown = false;
    let standsIn = standIn !== undefined;
    const withStandIns: string[] = [];
    const replaced = value.replace(REFERENCE_OR_ESCAPE, (whole: string, type: string | undefined, name: string, output: string) => {
      if (type === undefined) {
        withStandIns.push(whole.slice(1));
        return whole.slice(1);
      }
      const ref = { address: `${type}.${name}`, output };
      const resolved = lookup(ref);
      if (resolved === undefined) {
        unknown = true;
        const stand = standsIn ? standIn?.(ref) : undefined;
        if (stand === undefined) standsIn = false;
        withStandIns.push(stand ?? '');
      } else withStandIns.push(resolved);
      return resolved ?? '';
    });
    if (!unknown) return replaced;
    if (!standsIn) return unknownValue;
    let i = 0;
    return Unknown.withStandIn(value.replace(REFERENCE_OR_ESCAPE, () => withStandIns[i++] as string));
  }
  if (Array.isArray(value)) return value.map((v) => resolveReferences(v, lookup, standIn));
  if (isObject(value)) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) setOwn(out, unescapeTemplate(k), resolveReferences(v, lookup, standIn));
    return out;
  }
  return value;
}

/** Escapes read as the literals they stand for, references left as written (for commands that show code's values without applying them). */
export function unescapedAttributes(value: JsonValue): JsonValue {
  return resolveReferences(value, (ref) => `\${${ref.address}.${ref.output}}`);
}

/**
 * Refuses, by name, a Terraform expression or directive the engine does not evaluate (e.g.
 * `${var.region}`, `${upper(x)}`, `%{ if }`) anywhere in a resource's attributes, keys
 * included: what Terraform would compute is never sent as written.
 */
export function refuseUnevaluated(value: JsonValue, at: string): void {
  if (typeof value === 'string') {
    const expression = unevaluatedExpression(value);
    if (expression !== undefined) {
      throw new FleetformError(
        `${JSON.stringify(value)} holds ${expression}, a Terraform expression fleetform's engine does not evaluate`,
        {
          path: at,
          hint: "fleetform evaluates ${count.index}, ${each.key}, ${each.value...} and references to fleetform resources' outputs: write the value itself (a literal `${` is written `$${`), or deploy with `cdktf deploy` (the fleetform Terraform provider)",
        },
      );
    }
  } else if (Array.isArray(value)) value.forEach((v, i) => refuseUnevaluated(v, `${at}[${i}]`));
  else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      refuseUnevaluated(k, `${at}.${k}`);
      refuseUnevaluated(v, `${at}.${k}`);
    }
  }
}
