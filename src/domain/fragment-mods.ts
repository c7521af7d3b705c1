import { childPath } from './json-path';
import { setOwn } from './own-keys';
import { isObject } from './json-value';

/**
 * Per-machine overrides of a fragment (`fragment_mods`): MongoDB-style `$set` and `$unset`
 * over dotted paths. The first segment is the section (`components`, `services`, `modules`,
 * `packages`, ...), the second the NAME of an entry of it as the machine sees it (after
 * prefixes), then fields, numeric segments indexing arrays. Entries are found by the name
 * they had before any mod, so a mod renaming an entry (`$set` of `components.a.name`)
 * leaves the others addressing it as `a`. `$set` creates missing objects on its way (never
 * through a value that is not an object or array), an array index at most the array's
 * length (appending); `$set` of a whole entry (two segments) replaces it with an object.
 * `$unset` needs what it names to exist: a field is removed, an array element becomes null,
 * a whole entry is removed. Any other operator is refused.
 */

/** The sections whose entries are named by `name` (`processes` by `id`). */
export const NAMED_SECTIONS = ['components', 'services', 'modules', 'packages', 'remotes', 'processes', 'jobs'] as const;
export type NamedSection = (typeof NAMED_SECTIONS)[number];

/** The name an entry of a section goes by: `id` for processes, `name` for the rest. */
export function entryName(section: string, entry: unknown): string | undefined {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return undefined;
  const key = section === 'processes' ? 'id' : 'name';
  const name = (entry as Record<string, unknown>)[key];
  return typeof name === 'string' ? name : undefined;
}

export function isNamedSection(s: string): s is NamedSection {
  return (NAMED_SECTIONS as readonly string[]).includes(s);
}

/** Sections of a config's entries: each a list of objects, changed in place by the mods. */
export type Sections = Map<NamedSection, Record<string, unknown>[]>;

/** A mod that could not be applied: the path of the mod in the config, and why. */
export interface ModFailure {
  readonly field: string;
  readonly message: string;
  readonly shape: boolean;
}

const INDEX = /^(0|[1-9]\d*)$/;

/** Entries by the names they have now (before any mod), per section. */
function entryIndex(sections: Sections): Map<string, Record<string, unknown>> {
  const index = new Map<string, Record<string, unknown>>();
  for (const [section, entries] of sections) {
    for (const entry of entries) {
      const name = entryName(section, entry);
      if (name !== undefined && !index.has(`${section}\u0000${name}`)) index.set(`${section}\u0000${name}`, entry);
    }
  }
  return index;
}

/** Applies one `$set` or `$unset` of `path`; a message when it names nothing. */
function applyOne(
  op: '$set' | '$unset',
  path: string,
  value: unknown,
  index: Map<string, Record<string, unknown>>,
  removed: Set<Record<string, unknown>>,
): string | undefined {
  const segments = path.split('.');
  const [section, name, ...rest] = segments;
  if (section === undefined || name === undefined || name === '' || segments.some((s) => s === '')) {
    return `path ${JSON.stringify(path)} must be <section>.<entry name>[.<field>...]`;
  }
  if (!isNamedSection(section))
    return `path ${JSON.stringify(path)}: unknown section ${JSON.stringify(section)}; use one of ${NAMED_SECTIONS.join(', ')}`;
  const entry = index.get(`${section}\u0000${name}`);
  if (!entry || removed.has(entry))
    return `path ${JSON.stringify(path)}: the fragment has no ${section} entry named ${JSON.stringify(name)}`;
  if (rest.length === 0) {
    if (op === '$unset') {
      removed.add(entry);
      return undefined;
    }
    if (!isObject(value)) return `path ${JSON.stringify(path)}: a whole entry can only be set to an object`;
    for (const key of Object.keys(entry)) delete entry[key];
    for (const key of Object.keys(value)) setOwn(entry, key, value[key]);
    return undefined;
  }
  let at: unknown = entry;
  for (let i = 0; i < rest.length; i++) {
    const key = rest[i] as string;
    const last = i === rest.length - 1;
    const walked = [section, name, ...rest.slice(0, i)].join('.');
    if (Array.isArray(at)) {
      if (!INDEX.test(key)) return `path ${JSON.stringify(path)}: ${walked} is an array; ${JSON.stringify(key)} is not an index`;
      const n = Number(key);
      if (last) {
        if (op === '$unset') {
          if (n >= at.length) return `path ${JSON.stringify(path)}: ${walked} has no element ${n}`;
          at[n] = null;
        } else {
          if (n > at.length) return `path ${JSON.stringify(path)}: ${walked} has ${at.length} elements; set index ${at.length} at most`;
          at[n] = value;
        }
        return undefined;
      }
      if (n >= at.length) return `path ${JSON.stringify(path)}: ${walked} has no element ${n}`;
      at = at[n];
    } else if (isObject(at)) {
      const has = Object.prototype.hasOwnProperty.call(at, key);
      if (last) {
        if (op === '$unset') {
          if (!has) return `path ${JSON.stringify(path)}: ${walked} has no field ${JSON.stringify(key)}`;
          delete at[key];
        } else {
          setOwn(at, key, value);
        }
        return undefined;
      }
      if (!has) {
        if (op === '$unset') return `path ${JSON.stringify(path)}: ${walked} has no field ${JSON.stringify(key)}`;
        setOwn(at, key, {});
      }
      at = at[key];
    } else {
      return `path ${JSON.stringify(path)}: ${walked} is ${JSON.stringify(at)}, not an object or array`;
    }
  }
  return undefined;
}

/**
 * Applies `mods` (the `mods` list of one `fragment_mods` entry) to `sections`, in order, in
 * place; entries a `$unset` removed are taken out at the end. Returns the failures (every
 * mod is tried); the caller keeps the result only when there are none.
 */
export function applyMods(sections: Sections, mods: unknown, field: string): ModFailure[] {
  if (!Array.isArray(mods)) return [{ field, message: 'mods must be a list of {"$set": {...}} or {"$unset": {...}} objects', shape: true }];
  const index = entryIndex(sections);
  const removed = new Set<Record<string, unknown>>();
  const failures: ModFailure[] = [];
  mods.forEach((mod, i) => {
    const modField = childPath(field, i);
    if (!isObject(mod) || Object.keys(mod).length === 0) {
      failures.push({ field: modField, message: 'a mod is an object such as {"$set": {"<path>": value}}', shape: true });
      return;
    }
    for (const op of Object.keys(mod)) {
      const opField = childPath(modField, op);
      if (op !== '$set' && op !== '$unset') {
        failures.push({ field: opField, message: `unsupported operator ${JSON.stringify(op)}; use $set or $unset`, shape: true });
        continue;
      }
      const paths = mod[op];
      if (!isObject(paths)) {
        failures.push({ field: opField, message: `${op} takes an object of "<path>": value`, shape: true });
        continue;
      }
      for (const path of Object.keys(paths)) {
        const message = applyOne(op, path, paths[path], index, removed);
        if (message !== undefined) failures.push({ field: childPath(opField, path), message, shape: false });
      }
    }
  });
  if (removed.size > 0) {
    for (const [section, entries] of sections)
      sections.set(
        section,
        entries.filter((e) => !removed.has(e)),
      );
  }
  return failures;
}
