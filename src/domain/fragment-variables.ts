import { childPath } from './json-path';
import { setOwn } from './own-keys';
import { isObject } from './json-value';

/**
 * Fragment variables. A value of a fragment's config written `{"$variable": {"name": "<var>"}}`
 * (an object with that one key) is replaced by the value the importing machine gives for
 * `<var>`. A placeholder whose variable has no value stays as written, so the machine sees
 * the placeholder itself, and is reported (an unset variable is an error to fix, never a
 * silent empty value).
 */

const hasOwn = Object.prototype.hasOwnProperty;

/** What a variable may be named: letters, digits, `_` and `-`, starting with a letter or `_`. */
export const VARIABLE_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]*$/;

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
  /**
   * The value with every placeholder whose variable has a value replaced. The input is never
   * changed: objects and arrays holding a replaced placeholder are new, the rest are shared.
   */
  readonly value: unknown;
  /** Placeholders left as written. */
  readonly unset: UnsetVariable[];
  /** Every variable name the value reads, set or not. */
  readonly read: Set<string>;
}

/**
 * Values walked before and found to hold no placeholder: a fragment read once is imported
 * by every machine, and a value is never changed (see Substitution).
 */
const withoutPlaceholders = new WeakSet<object>();

/** Replaces the `$variable` placeholders of a JSON value at any depth by `variables`' own values. */
export function substituteVariables(value: unknown, variables: Readonly<Record<string, unknown>>, path = ''): Substitution {
  if (value !== null && typeof value === 'object' && withoutPlaceholders.has(value)) return { value, unset: [], read: new Set() };
  const unset: UnsetVariable[] = [];
  const read = new Set<string>();
  // The path is kept as a stack of keys and written out only for an unset placeholder.
  const keys: Array<string | number> = [];
  const walk = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object') return v;
    if (Array.isArray(v)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        keys.push(i);
        const item = walk(v[i]);
        keys.pop();
        if (item !== v[i]) (out ??= v.slice())[i] = item;
      }
      return out ?? v;
    }
    const name = variableName(v);
    if (name !== undefined) {
      read.add(name);
      if (hasOwn.call(variables, name)) return variables[name];
      unset.push({ name, path: keys.reduce<string>((p, k) => childPath(p, k), path) });
      return v;
    }
    const record = v as Record<string, unknown>;
    let out: Record<string, unknown> | undefined;
    for (const key of Object.keys(record)) {
      keys.push(key);
      const item = walk(record[key]);
      keys.pop();
      if (item !== record[key]) {
        if (!out) {
          out = {};
          for (const k of Object.keys(record)) setOwn(out, k, record[k]);
        }
        setOwn(out, key, item);
      }
    }
    return out ?? v;
  };
  const substituted = walk(value);
  if (read.size === 0 && value !== null && typeof value === 'object') withoutPlaceholders.add(value);
  return { value: substituted, unset, read };
}
