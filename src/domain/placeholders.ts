import { childPath } from './issue';
import { parsePackageKey, type PackageReference } from './packages';
import { someStringIncludes } from './strings-within';

/**
 * Placeholders `${...}`. The valid keys are `environment.NAME`, read from the machine
 * server's own environment, and `packages.NAME` / `packages.TYPE.NAME`, the folder of one
 * of the machine's packages. There is no escaping in the value itself (in the
 * synthesized Terraform JSON they are written `$${...}`: see template-escape.ts). They are applied to
 * module `env` values, `executable_path` and resource attributes at any depth.
 */

/** Outer placeholder pattern: `${` then anything but `}` then `}`. */
export const PLACEHOLDER_PATTERN = /\$\{([^}]*)\}/g;
/** The one valid key form, capturing the variable name. */
export const ENVIRONMENT_KEY_PATTERN = /^environment\.([\w:/-]+)$/;

/** A value that is one environment placeholder and nothing else: `${NAME}` or `${environment.NAME}`. */
const WHOLE_ENVIRONMENT_PLACEHOLDER = /^\$\{(?:environment\.[\w:/-]+|[A-Za-z_][A-Za-z0-9_]*)\}$/;

/**
 * Whether a value is wholly an environment placeholder (`${NAME}`, `${environment.NAME}`):
 * the machine fills it in from its own environment, so the value is no secret. It is kept as
 * written in code, state and plans wherever it sits, even where the language declares secrets.
 */
export function isEnvironmentPlaceholder(value: unknown): value is string {
  return typeof value === 'string' && WHOLE_ENVIRONMENT_PLACEHOLDER.test(value);
}

/** One placeholder found in a value. */
export interface PlaceholderRef {
  /** JSON path of the string holding it. */
  path: string;
  /** The whole placeholder text, e.g. `${environment.HOME}`. */
  text: string;
  /** The environment variable it reads, for an `environment.NAME` key. */
  variable?: string;
  /** The package it refers to, for a `packages...` key. */
  package?: PackageReference;
  valid: boolean;
}

function refsInString(s: string, path: string): PlaceholderRef[] {
  const refs: PlaceholderRef[] = [];
  for (const m of s.matchAll(PLACEHOLDER_PATTERN)) {
    const key = ENVIRONMENT_KEY_PATTERN.exec(m[1] as string);
    const pkg = key ? undefined : parsePackageKey(m[1] as string);
    if (key) refs.push({ path, text: m[0], variable: key[1] as string, valid: true });
    else if (pkg) refs.push({ path, text: m[0], package: pkg, valid: true });
    else refs.push({ path, text: m[0], valid: false });
  }
  return refs;
}

/**
 * Whether a JSON value may hold a placeholder: some string in it (at any depth, keys
 * aside) contains `${`. When not, findPlaceholders finds none; a quick test before it.
 */
export function mayHoldPlaceholder(value: unknown): boolean {
  return someStringIncludes(value, '${');
}

/** Every placeholder in a JSON value (strings at any depth of objects and arrays), with the path of its string. */
export function findPlaceholders(value: unknown, path: string): PlaceholderRef[] {
  const refs: PlaceholderRef[] = [];
  collectPlaceholders(value, path, [], refs);
  return refs;
}

/**
 * Walks the value keeping the path as a stack of keys, turned into text only for a string
 * that holds a placeholder (a machine config has hundreds of values and rarely any).
 */
function collectPlaceholders(value: unknown, base: string, keys: Array<string | number>, into: PlaceholderRef[]): void {
  if (typeof value === 'string') {
    if (value.includes('${'))
      into.push(
        ...refsInString(
          value,
          keys.reduce<string>((p, k) => childPath(p, k), base),
        ),
      );
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      keys.push(i);
      collectPlaceholders(value[i], base, keys, into);
      keys.pop();
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      keys.push(k);
      collectPlaceholders(v, base, keys, into);
      keys.pop();
    }
  }
}

/** The outcome of substituting placeholders in one string. */
export interface Substitution {
  /** The text with every resolvable placeholder replaced; unresolvable ones are left as written. */
  value: string;
  /** Variables that were referenced but are not set, in order of first use. */
  missing: string[];
  /** Placeholders whose key is neither `environment.NAME` nor a package's, as written. */
  invalid: string[];
}

/** The folder of a package a placeholder refers to, or undefined when the machine has no such package. */
export type PackageFolders = (ref: PackageReference) => string | undefined;

/**
 * Replaces `${environment.NAME}` in text with values from env (an empty value counts as
 * set), and package placeholders with their folders when `packages` is given (else, and
 * for a package it cannot place, they stay as written).
 */
export function substitutePlaceholders(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  packages?: PackageFolders,
): Substitution {
  const missing: string[] = [];
  const invalid: string[] = [];
  const value = text.replace(PLACEHOLDER_PATTERN, (whole: string, key: string) => {
    const m = ENVIRONMENT_KEY_PATTERN.exec(key);
    if (!m) {
      const pkg = parsePackageKey(key);
      if (pkg) return packages?.(pkg) ?? whole;
      if (!invalid.includes(whole)) invalid.push(whole);
      return whole;
    }
    const name = m[1] as string;
    const v = Object.prototype.hasOwnProperty.call(env, name) ? env[name] : undefined;
    if (v === undefined) {
      if (!missing.includes(name)) missing.push(name);
      return whole;
    }
    return v;
  });
  return { value, missing, invalid };
}
