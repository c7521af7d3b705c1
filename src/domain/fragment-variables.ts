import { childPath } from './json-path';
import { setOwn } from './own-keys';

/**
 * Fragment variables. A value of a fragment's config written `{"$variable": {"name": "<var>"}}`
 * (an object with that one key) is replaced by the value the importing machine gives for
 * `<var>`. A placeholder whose variable has no value stays as written, so the machine sees
 * the placeholder itself, and is reported (an unset variable is an error to fix, never a
 * silent empty value).
 */

const hasOwn = Object.prototype.hasOwnProperty;

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The variable a value reads, when it is a `$variable` placeholder. */
export function variableName(value: unknown): string | undefined {
  if (!isObject(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length !== 1 || keys[0] !== '$variable') return undefined;
  const inner = value['$variable'];
  if (!isObject(inner) || typeof inner['name'] !== 'string') return undefined;
  return inner['name'];
}

/** A placeholder of a fragment's config left as written: its variable and the path of the value. */
export interface UnsetVariable {
  readonly name: string;
  readonly path: string;
}

export interface Substitution {
  /** The value with every placeholder whose variable has a value replaced (a copy; the input is never changed). */
  readonly value: unknown;
  /** Placeholders left as written. */
  readonly unset: UnsetVariable[];
  /** Every variable name the value reads, set or not. */
  readonly read: Set<string>;
}

/** Replaces the `$variable` placeholders of a JSON value at any depth by `variables`' own values. */
export function substituteVariables(value: unknown, variables: Readonly<Record<string, unknown>>, path = ''): Substitution {
  const unset: UnsetVariable[] = [];
  const read = new Set<string>();
  const walk = (v: unknown, at: string): unknown => {
    const name = variableName(v);
    if (name !== undefined) {
      read.add(name);
      if (hasOwn.call(variables, name)) return variables[name];
      unset.push({ name, path: at });
      return v;
    }
    if (Array.isArray(v)) return v.map((item, i) => walk(item, childPath(at, i)));
    if (isObject(v)) {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(v)) setOwn(out, key, walk(v[key], childPath(at, key)));
      return out;
    }
    return v;
  };
  return { value: walk(value, path), unset, read };
}
