import type { IConstruct } from 'constructs';
import type { JsonObject, JsonValue } from './json-value';
import type { Secret } from './secret';

/** A fragment as a machine imports it: a Fragment construct (of any copy of this library). */
export interface IFragment extends IConstruct {
  /** Name of the fragment. */
  readonly name: string;
  /** The fragment id the service assigns: a reference resolved at apply. */
  readonly fragmentId: string;
  /** The revision the fragment's last apply saved: a reference resolved at apply. */
  readonly revision: string;
}

/**
 * One override of what an import brings, in the service's `fragment_mods` form: `$set`
 * or `$unset` of dotted paths whose second segment is an entry's name as the machine sees
 * it (after the prefix), e.g. `{ $set: { 'components.front-board.attributes.timeout_ms': 200 } }`.
 */
export interface FragmentMod {
  readonly $set?: Readonly<Record<string, JsonValue>>;
  readonly $unset?: Readonly<Record<string, JsonValue>>;
}

/** How a machine (or a fragment) imports a fragment. */
export interface UseFragmentOptions {
  /**
   * The revision (`"3"`) or tag (`"stable"`) to run.
   * @default the fragment's latest revision, followed as it changes
   */
  readonly version?: string;
  /** Prepended to the names of the components and services it brings (`front` + `board` -> `front-board`). */
  readonly prefix?: string;
  /** Values of the fragment's variables (see Fragment.variable); a secret one by reference (Secret.fromEnv, Secret.fromFile). */
  readonly variables?: Readonly<Record<string, JsonValue | Secret>>;
  /** Overrides of what it brings: if one fails, the service applies none. */
  readonly mods?: readonly FragmentMod[];
  /** Keep the import but bring none of its entries. */
  readonly disabled?: boolean;
  /**
   * Write the import as the fragment's bare id (`"fragments": ["<id>"]`), the older form the
   * service reads as `{ "id": "<id>" }`; it then takes no version, prefix, variables or
   * disabled (mods it takes: they are written apart, in `fragment_mods`).
   * @default false: the import is written `{ "id": "<id>", ... }`
   */
  readonly bareId?: boolean;
}

interface FragmentImport {
  readonly fragment: IFragment | string;
  readonly options: UseFragmentOptions;
}

const importsOf = new WeakMap<IConstruct, FragmentImport[]>();

/** Records an import of `fragment` by a machine or a fragment, in the order declared. */
export function addFragmentImport(holder: IConstruct, fragment: IFragment | string, options: UseFragmentOptions): void {
  const list = importsOf.get(holder) ?? [];
  list.push({ fragment, options });
  importsOf.set(holder, list);
}

/** An import's entry of a config: JSON, but for the secret variables given by reference (until synthesis takes them out). */
export type ImportEntry = { [key: string]: JsonValue | Readonly<Record<string, JsonValue | Secret>> };

/** The fragments a machine or fragment imports, in the order declared. */
export function fragmentImportsOf(
  holder: IConstruct,
): ReadonlyArray<{ readonly fragment: IFragment | string; readonly options: UseFragmentOptions }> {
  return importsOf.get(holder) ?? [];
}

const serviceIdOf = (fragment: IFragment | string): string => (typeof fragment === 'string' ? fragment : fragment.fragmentId);

/**
 * The `fragments` and `fragment_mods` keys of a machine's or fragment's config, when it
 * imports any: each import's entry (`{id, version, prefix, variables, disabled}`, unset
 * options left out, or the bare id when it says so) and the mods of each imported
 * fragment, in the order declared. Each fragment is named by `idOf` (by default the id the
 * service assigns it).
 */
export function fragmentConfigKeys(
  holder: IConstruct,
  idOf: (fragment: IFragment | string) => string = serviceIdOf,
): { fragments?: Array<ImportEntry | string>; fragment_mods?: JsonObject[] } {
  type Entry = ImportEntry;
  const imports = importsOf.get(holder);
  if (!imports || imports.length === 0) return {};
  const fragments: Array<Entry | string> = [];
  const mods = new Map<string, JsonValue[]>();
  for (const { fragment, options } of imports) {
    const id = idOf(fragment);
    const entry: Entry = { id };
    if (options.version !== undefined) entry.version = options.version;
    if (options.prefix !== undefined) entry.prefix = options.prefix;
    if (options.variables !== undefined) entry.variables = { ...options.variables };
    if (options.disabled !== undefined) entry.disabled = options.disabled;
    // The older form: the bare id, which says nothing more.
    fragments.push(options.bareId === true ? id : entry);
    if (options.mods && options.mods.length > 0)
      mods.set(id, [...(mods.get(id) ?? []), ...options.mods.map((m) => ({ ...m }) as JsonObject)]);
  }
  const keys: { fragments: Array<Entry | string>; fragment_mods?: JsonObject[] } = { fragments };
  if (mods.size > 0) keys.fragment_mods = [...mods].map(([fragment_id, list]) => ({ fragment_id, mods: list }));
  return keys;
}

/** A FragmentTag of the stack as imports find it: its tag and its address. */
interface DeclaredTag {
  readonly tag: string;
  /** `fleetform_fragment_tag.<logical id>`. */
  address(): string;
}

const tagsOf = new WeakMap<IFragment, DeclaredTag[]>();

/** Records a FragmentTag of a Fragment: machines importing the fragment at that tag follow it. */
export function addDeclaredTag(fragment: IFragment, tag: DeclaredTag): void {
  tagsOf.set(fragment, [...(tagsOf.get(fragment) ?? []), tag]);
}

/**
 * The addresses of the FragmentTags a machine's or fragment's imports name (a Fragment
 * imported at a tag the stack declares): its `depends_on`, so the tag exists, and points at
 * its revision, before the config importing it is written.
 */
export function tagDependencies(holder: IConstruct): string[] {
  const out = new Set<string>();
  for (const { fragment, options } of importsOf.get(holder) ?? []) {
    if (typeof fragment === 'string' || options.version === undefined) continue;
    for (const t of tagsOf.get(fragment) ?? []) if (t.tag === options.version) out.add(t.address());
  }
  return [...out];
}

/** A resource's Terraform JSON with `extra` added to its `depends_on`. */
export function withDependencies(
  json: Record<string, unknown>,
  type: string,
  logicalId: string,
  extra: readonly string[],
): Record<string, unknown> {
  if (extra.length === 0) return json;
  const resources = json.resource as Record<string, Record<string, Record<string, unknown>>> | undefined;
  const body = resources?.[type]?.[logicalId];
  if (!resources || !body) return json;
  const own = Array.isArray(body.depends_on) ? (body.depends_on as unknown[]) : [];
  const dependsOn = [...own, ...extra.filter((d) => !own.includes(d))];
  return { ...json, resource: { ...resources, [type]: { ...resources[type], [logicalId]: { ...body, depends_on: dependsOn } } } };
}
