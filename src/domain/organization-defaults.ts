import { z } from 'zod';
import { isObject, type JsonObject, type JsonValue } from './json-value';
import { schemaProblems, type SchemaProblem } from './schema-issues';

/**
 * One of an organization's default fragments: a fragment every machine created in the
 * organization starts with importing, in the form of a machine config's `fragments` entry.
 * `version` is a revision or a tag (absent: the latest revision, followed); `variables`
 * are the fragment's variables, each any JSON value.
 */
export interface DefaultFragmentImport {
  readonly id: string;
  readonly version?: string;
  readonly prefix?: string;
  readonly variables?: JsonObject;
}

const jsonValue = z.custom<JsonValue>(
  (x) => x !== undefined && typeof x !== 'function' && typeof x !== 'symbol' && typeof x !== 'bigint',
  'expected a JSON value',
);

/** The rule of one default import: the machine config's import form, without the parts the organization's list has no field for. */
export const defaultFragmentImportSchema = z.strictObject({
  id: z.string().min(1, 'an import needs the id of its fragment'),
  version: z.string().min(1, 'a version is a revision number or a tag; leave it out to follow the latest revision').optional(),
  prefix: z.string().min(1, 'leave prefix out rather than empty').optional(),
  variables: z.record(z.string(), jsonValue).optional(),
});

export const defaultFragmentsSchema = z.array(defaultFragmentImportSchema);

/**
 * An import as compared and stored: unset parts left out, empty variables as none (the
 * service keeps no empty variables apart from none).
 */
export function normalDefaultImport(i: DefaultFragmentImport): DefaultFragmentImport {
  return {
    id: i.id,
    ...(i.version ? { version: i.version } : {}),
    ...(i.prefix ? { prefix: i.prefix } : {}),
    ...(i.variables && Object.keys(i.variables).length > 0 ? { variables: i.variables } : {}),
  };
}

/** The imports as JSON: what a view and the attribute's text hold. */
export function defaultImportsJson(imports: readonly DefaultFragmentImport[]): JsonValue[] {
  return imports.map((i) => normalDefaultImport(i) as unknown as JsonObject);
}

/** Parsed default fragments, or the problems of the text, each naming its path (`fragments[0].id`). */
export type ParsedDefaults =
  | { readonly ok: true; readonly imports: readonly DefaultFragmentImport[] }
  | { readonly ok: false; readonly problems: readonly SchemaProblem[] };

const WORDING = {
  noun: 'key',
  owner: 'a default fragment import',
  quote: false,
  known: Object.keys(defaultFragmentImportSchema.shape),
  suggest: (key: string) =>
    key === 'disabled' || key === 'mods' || key === 'fragment_mods'
      ? 'an organization default import has no disabled or mods: give them on each machine that imports the fragment'
      : key === 'fragment_id'
        ? 'the import names its fragment as "id", as a machine config does'
        : undefined,
} as const;

/** The default fragments a JSON text gives: a list of imports in the form of a machine config's `fragments`. */
export function parseDefaultFragments(text: string): ParsedDefaults {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const problem: SchemaProblem = {
      kind: 'type',
      path: 'fragments',
      name: 'fragments',
      text: `is not JSON: ${(err as Error).message}`,
      message: `fragments is not JSON text: ${(err as Error).message}`,
      hint: 'give the list of imports as JSON text (jsonencode([...]) in Terraform)',
    };
    return { ok: false, problems: [problem] };
  }
  const parsed = defaultFragmentsSchema.safeParse(value);
  if (!parsed.success) {
    const problems = schemaProblems(parsed.error.issues, value, WORDING).map((p) => ({
      ...p,
      path: `fragments${p.path.startsWith('[') || p.path === '' ? '' : '.'}${p.path}`,
    }));
    return { ok: false, problems };
  }
  const imports = parsed.data.map((i) => normalDefaultImport(i as DefaultFragmentImport));
  const seen = new Map<string, number>();
  for (const [n, i] of imports.entries()) {
    const key = `${i.id}\u0000${i.prefix ?? ''}`;
    const first = seen.get(key);
    if (first !== undefined) {
      const path = `fragments[${n}]`;
      const text = `imports fragment ${i.id} again${i.prefix ? ` with the same prefix ${i.prefix}` : ''} (as fragments[${first}] does)`;
      return {
        ok: false,
        problems: [
          {
            kind: 'value',
            path,
            name: String(n),
            text,
            message: `${path} ${text}`,
            hint: 'import a fragment twice only with two prefixes',
          },
        ],
      };
    }
    seen.set(key, n);
  }
  return { ok: true, imports };
}

/** The default imports a JSON value holds when it is a list of them (a view's), else none. */
export function defaultImportsOf(value: unknown): DefaultFragmentImport[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isObject).flatMap((raw) => {
    const parsed = defaultFragmentImportSchema.safeParse(raw);
    return parsed.success ? [normalDefaultImport(parsed.data as DefaultFragmentImport)] : [];
  });
}
