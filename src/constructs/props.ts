import { z } from 'zod';
import type { IConstruct } from 'constructs';
import { FleetformError } from '../domain/errors';
import { childPath, pathOf } from '../domain/json-path';
import { nearestName } from '../domain/suggest';
import { kindOf, type FleetKind } from './kinds';
import { camelCase } from './field-names';
import { quicklyAccepted } from './props-quick';

/** Props of a construct that its schema refuses: an unknown name, a wrong type or a missing value. */
export class PropsError extends FleetformError {}

function describeReceived(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function valueAt(props: unknown, path: readonly PropertyKey[]): unknown {
  let value = props;
  for (const key of path) value = value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

/** One line per problem: the prop's path, what is wrong and, for an unknown name, the likely one. */
function problemLines(issue: z.core.$ZodIssue, props: unknown, known: readonly string[]): { line: string; hint?: string }[] {
  const at = pathOf(issue.path);
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => {
      const name = childPath(at, key);
      // The service's JSON writes module_id, depends_on...: the prop is its camelCase form.
      const camel = camelCase(key);
      if (camel !== key && known.includes(camel)) return { line: `unknown prop "${name}"`, hint: `did you mean "${camel}"? props are camelCase, where the service's JSON writes ${key}` };
      const near = nearestName(key, known);
      return { line: `unknown prop "${name}"`, ...(near ? { hint: `did you mean "${near}"?` } : {}) };
    });
  }
  const received = valueAt(props, issue.path);
  if (issue.code === 'invalid_type' && received === undefined) return [{ line: `"${at}" is required` }];
  const what = issue.code === 'invalid_type' ? `expected ${issue.expected}, got ${describeReceived(received)}` : issue.message;
  return [{ line: `"${at}": ${what}` }];
}

/**
 * Checks a construct's props against its strict schema, so JavaScript callers (and
 * TypeScript run without type checks) get the errors the compiler gives: an unknown prop
 * names the nearest valid one, a wrong type says what was expected, nothing is coerced
 * (a string is never split into an array). Throws a PropsError at the construct's path.
 */
export function checkProps<T>(construct: IConstruct, constructName: string, schema: z.ZodObject, props: unknown): T {
  if (quicklyAccepted(schema, props ?? {})) return props as T;
  const result = schema.safeParse(props ?? {});
  if (result.success) return props as T;
  const known = Object.keys(schema.shape);
  const problems = result.error.issues.flatMap((issue) => problemLines(issue, props, known));
  const hints = problems.map((p) => p.hint).filter((h): h is string => h !== undefined);
  const message =
    problems.length === 1
      ? `${constructName}: ${problems[0]?.line}`
      : `${constructName} has ${problems.length} wrong props: ${problems.map((p) => p.line).join('; ')}`;
  throw new PropsError(message, {
    path: construct.node.path,
    hint: [...hints, `${constructName} takes: ${known.join(', ')}`].join('; '),
  });
}

/** Schema pieces the props of several constructs share. */
export const propSchemas = {
  text: z.string(),
  stringMap: z.record(z.string(), z.string()),
  jsonObject: z.custom<Record<string, unknown>>((x) => x !== null && typeof x === 'object' && !Array.isArray(x), 'expected an object of attributes'),
  /** A construct of this library of the given kind (of any copy of the library). */
  construct: <T>(kind: FleetKind, expected: string) => z.custom<T>((x) => kindOf(x) === kind, expected),
};
