import type { z } from 'zod';
import { childPath, pathOf } from './json-path';
import { nearestName } from './suggest';

/** What a schema refused, in fleetform's words: the path, what is wrong there and the fix. */
export interface SchemaProblem {
  readonly kind: 'unknown' | 'required' | 'type' | 'value' | 'other';
  /** JSON path of the value (of the refused name, for `unknown`). */
  readonly path: string;
  /** The last key of the path (`value` for the whole input). */
  readonly name: string;
  /** What is wrong, without the path: `expected string, got a number`. */
  readonly text: string;
  /** The whole line, naming the path: `"tags": expected array, got the string "cat"`. */
  readonly message: string;
  readonly hint?: string;
  /** For `required` and `type`: the type the schema wants; for `value`, the values it allows. */
  readonly expected?: string;
}

/** How the problems of one kind of input are worded. */
export interface SchemaWording {
  /** What a name of the input is called: `prop`, `attribute`, `key`. */
  readonly noun: string;
  /** The input's own name, for unknown names: `fleetform_note has no attribute txet`. */
  readonly owner?: string;
  /** Paths in quotes (`"a.b" is required`) or bare (`a.b is required`); quoted by default. */
  readonly quote?: boolean;
  /** The names the input takes: an unknown one names the nearest. */
  readonly known?: readonly string[];
  /** A hint for an unknown name before the nearest known one (e.g. its camelCase form). */
  readonly suggest?: (key: string) => string | undefined;
  /** A hint for the value at these keys (e.g. the attribute's description). */
  readonly hintAt?: (keys: readonly PropertyKey[]) => string | undefined;
  /**
   * The schema words its own messages (`must be a string: the output folder`): a problem
   * other than an unknown name reads as the path followed by the schema's message.
   */
  readonly ownMessages?: boolean;
}

/** What a value is, for a message: `a number`, `an array`, `the string "cat"`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function valueAt(root: unknown, keys: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of keys) value = value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

function withHint<T extends object>(problem: T, hint: string | undefined): T & { hint?: string } {
  return hint === undefined ? problem : { ...problem, hint };
}

/**
 * The problems of a value a zod schema refused, one per refused value (one per name for
 * unknown names), each naming its path, in the wording of the input it concerns.
 */
export function schemaProblems(issues: readonly z.core.$ZodIssue[], value: unknown, wording: SchemaWording): SchemaProblem[] {
  const q = (path: string): string => (wording.quote === false ? path : JSON.stringify(path));
  const known = wording.known ?? [];
  return issues.flatMap((issue): SchemaProblem[] => {
    const at = pathOf(issue.path);
    const last = issue.path[issue.path.length - 1];
    const name = last === undefined ? 'value' : String(last);
    const hint = wording.hintAt?.(issue.path);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => {
        const path = childPath(at, key);
        const near = nearestName(key, known);
        const suggestion = wording.suggest?.(key) ?? (near ? `did you mean ${q(near)}?` : undefined);
        const message = wording.owner ? `${wording.owner} has no ${wording.noun} ${q(path)}` : `unknown ${wording.noun} ${q(path)}`;
        return withHint({ kind: 'unknown' as const, path, name: key, text: `unknown ${wording.noun}`, message }, suggestion);
      });
    }
    if (wording.ownMessages)
      return [
        withHint(
          { kind: 'other' as const, path: at, name, text: issue.message, message: at ? `${q(at)} ${issue.message}` : issue.message },
          hint,
        ),
      ];
    const found = valueAt(value, issue.path);
    if (issue.code === 'invalid_type' && found === undefined) {
      return [
        withHint(
          { kind: 'required' as const, path: at, name, text: 'is required', message: `${q(at)} is required`, expected: issue.expected },
          hint,
        ),
      ];
    }
    if (issue.code === 'invalid_type') {
      const text = `expected ${issue.expected}, got ${describeValue(found)}`;
      return [
        withHint({ kind: 'type' as const, path: at, name, text, message: at ? `${q(at)}: ${text}` : text, expected: issue.expected }, hint),
      ];
    }
    if (issue.code === 'invalid_value') {
      const expected = issue.values.map((v) => JSON.stringify(v)).join(', ');
      const text = `expected one of ${expected}, got ${describeValue(found)}`;
      return [withHint({ kind: 'value' as const, path: at, name, text, message: at ? `${q(at)}: ${text}` : text, expected }, hint)];
    }
    return [
      withHint(
        { kind: 'other' as const, path: at, name, text: issue.message, message: at ? `${q(at)}: ${issue.message}` : issue.message },
        hint,
      ),
    ];
  });
}
