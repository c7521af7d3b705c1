import type { z } from 'zod';
import { isPlainRecord } from '../domain/plain-entries';

/** A test that says a value passes a schema; false says nothing (the schema decides). */
type Accepts = (value: unknown) => boolean;

/**
 * The test of a schema built from the kinds of schema props use (strings without checks,
 * optional, string enums, records of strings, arrays, unions, nested strict objects, custom
 * predicates); undefined for any
 * other kind, which only zod may judge.
 */
function acceptsOf(schema: z.core.$ZodType): Accepts | undefined {
  const def = schema._zod.def;
  // Refinements (min, max, refine, ...) are zod's to apply.
  if (def.checks?.length) return undefined;
  switch (def.type) {
    case 'string':
      return (v) => typeof v === 'string';
    case 'boolean':
      return (v) => typeof v === 'boolean';
    case 'optional': {
      const inner = acceptsOf((def as z.core.$ZodOptionalDef).innerType);
      return inner && ((v) => v === undefined || inner(v));
    }
    case 'record': {
      const { keyType, valueType } = def as z.core.$ZodRecordDef;
      const value = acceptsOf(valueType);
      if (keyType._zod.def.type !== 'string' || keyType._zod.def.checks?.length || !value) return undefined;
      return (v) => {
        if (!isPlainRecord(v)) return false;
        for (const key in v) if (!value(v[key])) return false;
        return true;
      };
    }
    case 'array': {
      const element = acceptsOf((def as z.core.$ZodArrayDef).element);
      if (!element) return undefined;
      return (v) => {
        if (!Array.isArray(v)) return false;
        for (let i = 0; i < v.length; i++) if (!element(v[i])) return false;
        return true;
      };
    }
    case 'union': {
      const options = (def as z.core.$ZodUnionDef).options.map(acceptsOf);
      if (options.some((o) => o === undefined)) return undefined;
      return (v) => {
        for (let i = 0; i < options.length; i++) if ((options[i] as Accepts)(v)) return true;
        return false;
      };
    }
    case 'enum': {
      // String enums only: a numeric TypeScript enum's object also maps its numbers back to names.
      const values = Object.values((def as z.core.$ZodEnumDef).entries);
      if (values.some((v) => typeof v !== 'string')) return undefined;
      const allowed = new Set<unknown>(values);
      return (v) => typeof v === 'string' && allowed.has(v);
    }
    case 'object':
      // A nested strict object of props (e.g. a machine's health gate).
      return acceptsProps(schema as unknown as z.ZodObject);
    case 'custom': {
      const { fn } = def as z.core.$ZodCustomDef;
      return (v) => {
        const verdict = fn(v);
        return !(verdict instanceof Promise) && Boolean(verdict);
      };
    }
    default:
      return undefined;
  }
}

/**
 * The test of a strict object schema of props: an object (not an array) with no key the
 * schema does not name, each value passing its key's test. Undefined when some key's
 * schema is of a kind only zod may judge.
 */
function acceptsProps(schema: z.ZodObject): Accepts | undefined {
  const def = schema._zod.def;
  if (def.catchall?._zod.def.type !== 'never') return undefined;
  const keys = Object.keys(def.shape);
  // Each key's test and whether it may be undefined: an optional key's test is its inner
  // schema's, so that the props a construct leaves out cost no call each.
  // A text key's test is written out in the loop below: most props are text.
  const tests: Accepts[] = [];
  const optional: boolean[] = [];
  const text: boolean[] = [];
  for (const key of keys) {
    const field = def.shape[key] as z.core.$ZodType;
    const fieldDef = field._zod.def;
    const isOptional = fieldDef.type === 'optional' && !fieldDef.checks?.length;
    const valueSchema = isOptional ? (fieldDef as z.core.$ZodOptionalDef).innerType : field;
    const test = acceptsOf(valueSchema);
    if (!test) return undefined;
    tests.push(test);
    optional.push(isOptional);
    text.push(valueSchema._zod.def.type === 'string');
  }
  const known = new Set(keys);
  return (props) => {
    if (props === null || typeof props !== 'object' || Array.isArray(props)) return false;
    // zod names unknown keys by the same enumeration.
    for (const key in props) if (!known.has(key)) return false;
    const record = props as Record<string, unknown>;
    for (let i = 0; i < keys.length; i++) {
      const value = record[keys[i] as string];
      if (value === undefined ? !optional[i] : text[i] ? typeof value !== 'string' : !(tests[i] as Accepts)(value)) return false;
    }
    return true;
  };
}

const compiled = new WeakMap<z.ZodObject, Accepts | null>();

/**
 * Whether props certainly pass a construct's strict props schema, without running zod: a
 * construct is declared by the hundred thousand, nearly always with right props. False
 * says nothing: zod then decides and explains.
 */
export function quicklyAccepted(schema: z.ZodObject, props: unknown): boolean {
  // Constructs of one kind come in runs: the schema of the last call is looked up without hashing.
  let accepts = schema === lastSchema ? lastAccepts : compiled.get(schema);
  if (accepts === undefined) {
    accepts = acceptsProps(schema) ?? null;
    compiled.set(schema, accepts);
  }
  lastSchema = schema;
  lastAccepts = accepts;
  return accepts !== null && accepts(props);
}

let lastSchema: z.ZodObject | undefined;
let lastAccepts: Accepts | null = null;
