import { z } from 'zod';
import type { IConstruct } from 'constructs';
import { FleetformError } from '../domain/errors';
import { describeValue, schemaProblems } from '../domain/schema-issues';
import { constructTypeOf, type ConstructType } from './construct-types';
import { camelCase } from './field-names';
import { Secret } from './secret';

/** Props of a construct that its schema refuses: an unknown name, a wrong type or a missing value. */
export class PropsError extends FleetformError {}

/** The camelCase prop of a name written as the service's JSON writes it (module_id, depends_on...). */
function camelHint(key: string, known: readonly string[]): string | undefined {
  const camel = camelCase(key);
  return camel !== key && known.includes(camel)
    ? `did you mean "${camel}"? props are camelCase, where the service's JSON writes ${key}`
    : undefined;
}

const compiledSchemas = new WeakMap<z.ZodObject, z.ZodObject>();

/**
 * A props schema compiled once: a construct is declared by the hundred thousand, nearly
 * always with right props, which take the compiled path; wrong props are parsed again by
 * the schema itself, so its issues are zod's own.
 */
function compiledSchema(schema: z.ZodObject): z.ZodObject {
  let compiled = compiledSchemas.get(schema);
  if (compiled === undefined) {
    compiled = z.compile(schema);
    compiledSchemas.set(schema, compiled);
  }
  return compiled;
}

/** Whether a schema takes `{}`, by schema: asked once, as a schema's verdict on the same value never changes. */
const takesNoProps = new WeakMap<z.ZodObject, boolean>();

/** Whether the props are none: undefined, or a plain object without a key of its own (what a construct declared bare is given). */
function isNoProps(props: unknown): boolean {
  if (props === undefined) return true;
  if (props === null || typeof props !== 'object' || Object.getPrototypeOf(props) !== Object.prototype) return false;
  return Reflect.ownKeys(props).length === 0;
}

/** Whether the schema takes props that are none, without compiling it (a construct declared bare needs no compiled check). */
function schemaTakesNoProps(schema: z.ZodObject): boolean {
  let takes = takesNoProps.get(schema);
  if (takes === undefined) {
    takes = schema.safeParse({}).success;
    takesNoProps.set(schema, takes);
  }
  return takes;
}

/**
 * Checks a construct's props against its strict schema, so JavaScript callers (and
 * TypeScript run without type checks) get the errors the compiler gives: an unknown prop
 * names the nearest valid one, a wrong type says what was expected, nothing is coerced
 * (a string is never split into an array). Throws a PropsError at the construct's path.
 */
export function checkProps<T>(construct: IConstruct, constructName: string, schema: z.ZodObject, props: unknown): T {
  if (isNoProps(props) && schemaTakesNoProps(schema)) return props as T;
  // The props are the typed value: right props are validated without building a parsed copy of them.
  if (compiledSchema(schema).validate(props ?? {})) return props as T;
  const result = schema.safeParse(props ?? {});
  if (result.success) return props as T;
  const known = Object.keys(schema.shape);
  const problems = schemaProblems(result.error.issues, props, { noun: 'prop', known, suggest: (key) => camelHint(key, known) });
  const hints = problems.map((p) => p.hint).filter((h): h is string => h !== undefined);
  const message =
    problems.length === 1
      ? `${constructName}: ${problems[0]?.message}`
      : `${constructName} has ${problems.length} wrong props: ${problems.map((p) => p.message).join('; ')}`;
  throw new PropsError(message, {
    path: construct.node.path,
    hint: [...hints, `${constructName} takes: ${known.join(', ')}`].join('; '),
  });
}

const SECRET_OR_STRING = z.custom<string | Secret>((x) => typeof x === 'string' || Secret.isSecret(x), {
  error: (issue) => `expected string or a Secret (Secret.fromEnv, Secret.fromFile), got ${describeValue(issue.input)}`,
});

/** Schema pieces the props of several constructs share. */
export const propSchemas = {
  text: z.string(),
  stringMap: z.record(z.string(), z.string()),
  /** Text, or a Secret by reference (of any copy of the library). */
  secretOrString: SECRET_OR_STRING,
  /** Text values, or Secrets by reference. */
  secretOrStringMap: z.record(z.string(), SECRET_OR_STRING),
  jsonObject: z.custom<Record<string, unknown>>(
    (x) => x !== null && typeof x === 'object' && !Array.isArray(x),
    'expected an object of attributes',
  ),
  /** A construct of this library of the given kind (of any copy of the library). */
  construct: <T>(kind: ConstructType, expected: string) => z.custom<T>((x) => constructTypeOf(x) === kind, expected),
};
