/**
 * Whether a zod schema takes a value as it is: a test derived from the schema itself that
 * says, without parsing, that parsing would succeed and give back data equal to the value
 * (same keys, same leaves). It knows the plainest forms only (text, numbers and flags
 * without checks, lists, records and loose objects of plain objects, unions, optionals,
 * unknowns); a schema of any other form, or a value it cannot vouch for, is left to zod,
 * whose result then stands.
 */
import type { z } from 'zod';

/** A test of one value against the form of a schema. */
export type AsIs = (value: unknown) => boolean;

const never: AsIs = () => false;

/**
 * A schema's test, and whether the schema is of the plain forms throughout: a union takes a
 * value as it is only when every option is (else an earlier option could take it otherwise).
 */
interface Compiled {
  readonly test: AsIs;
  readonly plain: boolean;
}

const unsupported: Compiled = { test: never, plain: false };

/** A plain object (from JSON or a literal) that zod copies key for key: no `__proto__` of its own, which zod's copy leaves out. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && !Object.prototype.hasOwnProperty.call(value, '__proto__');
}

interface Def {
  readonly type: string;
  readonly checks?: readonly unknown[];
  readonly innerType?: z.ZodType;
  readonly element?: z.ZodType;
  readonly options?: readonly z.ZodType[];
  readonly keyType?: z.ZodType;
  readonly valueType?: z.ZodType;
  readonly shape?: Readonly<Record<string, z.ZodType>>;
  readonly catchall?: z.ZodType;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

const unchecked = (def: Def): boolean => def.checks === undefined || def.checks.length === 0;

function leaf(def: Def): Compiled {
  if (!unchecked(def)) return unsupported;
  // A number zod takes is finite.
  if (def.type === 'number') return { test: (v) => typeof v === 'number' && Number.isFinite(v), plain: true };
  const type = def.type;
  return { test: (v) => typeof v === type, plain: true };
}

function object(def: Def): Compiled {
  if (def.shape === undefined || def.catchall === undefined || defOf(def.catchall).type !== 'unknown') return unsupported;
  const fields = Object.entries(def.shape).map(([key, schema]) => [key, compile(schema)] as const);
  const test: AsIs = (v) => {
    if (!isPlainObject(v)) return false;
    for (const [key, field] of fields) if (!field.test(v[key])) return false;
    return true;
  };
  return { test, plain: fields.every(([, f]) => f.plain) };
}

function record(def: Def): Compiled {
  if (def.keyType === undefined || def.valueType === undefined) return unsupported;
  const key = defOf(def.keyType);
  if (key.type !== 'string' || !unchecked(key)) return unsupported;
  const value = compile(def.valueType);
  const test: AsIs = (v) => {
    if (!isPlainObject(v)) return false;
    for (const k in v) if (Object.prototype.hasOwnProperty.call(v, k) && !value.test(v[k])) return false;
    return true;
  };
  return { test, plain: value.plain };
}

function array(def: Def): Compiled {
  if (!unchecked(def) || def.element === undefined) return unsupported;
  const element = compile(def.element);
  const test: AsIs = (v) => {
    if (!Array.isArray(v)) return false;
    // A hole is left to zod, which reads it as undefined.
    for (let i = 0; i < v.length; i++) if (!(i in v) || !element.test(v[i])) return false;
    return true;
  };
  return { test, plain: element.plain };
}

function union(def: Def): Compiled {
  const options = (def.options ?? []).map(compile);
  if (options.length === 0 || !options.every((o) => o.plain)) return unsupported;
  return { test: (v) => options.some((o) => o.test(v)), plain: true };
}

function compile(schema: z.ZodType): Compiled {
  const def = defOf(schema);
  switch (def.type) {
    case 'unknown':
      return { test: () => true, plain: true };
    case 'string':
    case 'number':
    case 'boolean':
      return leaf(def);
    case 'optional': {
      if (def.innerType === undefined) return unsupported;
      const inner = compile(def.innerType);
      // Absent stays absent unless the inner schema fills it in (a default).
      const absentStays = (def.innerType as unknown as { _zod: { optin?: string } })._zod.optin !== 'optional';
      return { test: (v) => (v === undefined ? absentStays : inner.test(v)), plain: inner.plain };
    }
    case 'array':
      return array(def);
    case 'union':
      return union(def);
    case 'record':
      return record(def);
    case 'object':
      return object(def);
    default:
      return unsupported;
  }
}

/** The as-is test of `schema` (see the module's note): true only where zod would give back data equal to the value. */
export function asIsTest(schema: z.ZodType): AsIs {
  return compile(schema).test;
}
