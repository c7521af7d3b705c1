/**
 * Resolution of a machine's configuration from its own entries and the fragments it imports:
 * the config a machine actually runs. Pure: the fragments are looked up through a function
 * over plain data, so construct checks, plans, the provider and the emulator resolve alike.
 *
 * Rules:
 * - `fragments` lists imports, each a fragment id or `{id, version?, prefix?, variables?,
 *   disabled?}`. `version` is a revision or a tag; without it the latest revision is used.
 * - A fragment's config is a machine config; its `fragments` import further fragments, up to
 *   five imports away from the machine. A fragment reached again on its own import chain is a
 *   cycle. An import that fails contributes nothing; the others still resolve.
 * - `variables` fill the fragment's `{"$variable": {"name": ...}}` placeholders (nested imports
 *   included); an unset variable is an error and its placeholder is left as written.
 * - `prefix` is prepended with `-` to the names of the fragment's components and services (and
 *   to the `depends_on` entries naming them); nested prefixes compose, outer first.
 * - `disabled` keeps the import but loads none of its entries.
 * - `fragment_mods` (`[{fragment_id, mods}]`) apply to the entries an import of that fragment
 *   brings: `$set`/`$unset` of dotted paths `<section>.<entry name>.<field>...`, the entry
 *   named as the machine sees it (after prefixes). If any mod fails, no mod applies and every
 *   failure is reported. Mods of an import that brings nothing (disabled, or failed and
 *   reported as such) are skipped. A fragment's own `fragment_mods` apply to its imports.
 * - Entries merge by section and name: the machine's own first, then each import's in order.
 *   An imported entry named like an earlier one is an error (the earlier is kept), unless both
 *   come from imports and are equal (a module two fragments share): kept once. Other top-level keys of a
 *   fragment fill only keys the machine does not set. `fragments` and `fragment_mods` do not
 *   appear in the result.
 */
import { FragmentResolutionError, type FragmentErrorCode } from './fragment-errors';

import { applyMods, entryName, isNamedSection, NAMED_SECTIONS, type NamedSection, type Sections } from './fragment-mods';
import { substituteVariables } from './fragment-variables';
import { childPath } from './json-path';
import { setOwn } from './own-keys';
import { isObject, jsonEqual } from './json-value';

export * from './fragment-errors';
export { variableName, VARIABLE_NAME_PATTERN } from './fragment-variables';

/**
 * Issues of a config that imports fragments which only its resolved config can judge (a
 * module or a dependency's target its fragments may bring): checked at plan, resolved.
 */
export const FRAGMENT_RESOLVED_ISSUES: ReadonlySet<string> = new Set(['model-module-mismatch', 'depends-on-missing']);

/** The deepest import: a fragment at most this many imports away from the machine. */
export const FRAGMENT_NESTING_LIMIT = 5;

/** One revision of a fragment, as a lookup finds it. */
export interface FragmentAtVersion {
  readonly id: string;
  readonly name: string;
  readonly revision: string;
  readonly config: Readonly<Record<string, unknown>>;
}

/** Whether an import's version names a revision (its number) rather than a tag: revisions are numbered 1, 2, ... */
export function isRevisionNumber(version: string): boolean {
  return /^\d+$/.test(version);
}

/** A fragment at a version (revision or tag; undefined: the latest revision), or why there is none. */
export type FragmentLookup = (id: string, version: string | undefined) => FragmentAtVersion | 'unknown-fragment' | 'unknown-version';

/** A fragment as plain data: its revisions oldest first and its tags (tag -> revision). */
export interface FragmentSource {
  readonly id: string;
  readonly name: string;
  readonly revisions: ReadonlyArray<{ readonly revision: string; readonly config: Readonly<Record<string, unknown>> }>;
  readonly tags?: Readonly<Record<string, string>>;
}

/** A lookup over fragments given as data; a version names a revision first, then a tag. */
export function fragmentLookup(sources: Iterable<FragmentSource>): FragmentLookup {
  const byId = new Map<string, FragmentSource>();
  for (const s of sources) byId.set(s.id, s);
  return (id, version) => {
    const source = byId.get(id);
    if (!source) return 'unknown-fragment';
    let revision: string | undefined;
    if (version === undefined || version === '') revision = source.revisions[source.revisions.length - 1]?.revision;
    else if (source.revisions.some((r) => r.revision === version)) revision = version;
    else if (source.tags && Object.prototype.hasOwnProperty.call(source.tags, version)) revision = source.tags[version];
    const found = source.revisions.find((r) => r.revision === revision);
    return found ? { id, name: source.name, revision: found.revision, config: found.config } : 'unknown-version';
  };
}

/** An import of a fragment, as parsed from a `fragments` entry. */
export interface FragmentImportSpec {
  readonly id: string;
  readonly version?: string;
  readonly prefix?: string;
  readonly variables?: Readonly<Record<string, unknown>>;
  readonly disabled?: boolean;
}

/** One fragment import reached while resolving (the machine's and nested ones, in the order met). */
export interface ResolvedFragmentImport {
  readonly id: string;
  readonly name: string | undefined;
  /** The version the import asks for; undefined follows the latest revision. */
  readonly version: string | undefined;
  /** The revision used; undefined when the fragment or version is unknown. */
  readonly revision: string | undefined;
  /** The prefix its entries' names got (outer prefixes included); '' when none. */
  readonly prefix: string;
  /** 1 for the machine's own imports. */
  readonly depth: number;
  /** The fragment whose config holds the import; undefined for the machine's own. */
  readonly importedBy: string | undefined;
  /** Where the import is written. */
  readonly field: string;
  readonly disabled: boolean;
  /** What the import brings (its fragment's config resolved: nested imports, variables, prefixes and mods applied). */
  readonly config: Record<string, unknown> | undefined;
  /** The entries it brings, by section and name as the machine sees them. */
  readonly entries: ReadonlyArray<{ readonly section: NamedSection; readonly name: string }>;
  /** Why it brings nothing (unknown fragment or version, nesting limit, cycle). */
  readonly error: FragmentResolutionError | undefined;
}

export interface MachineConfigInput {
  /** The machine's name or id, used in errors. */
  readonly machine: string;
  /** The machine's stored config, `fragments` and `fragment_mods` included. */
  readonly config: Readonly<Record<string, unknown>>;
  readonly fragments: FragmentLookup;
}

export interface MachineResolution {
  /** The config the machine runs. */
  readonly config: Record<string, unknown>;
  readonly imports: ResolvedFragmentImport[];
  /** Every problem found, in the order met. */
  readonly errors: FragmentResolutionError[];
}

interface Level {
  readonly depth: number;
  /** Fragment ids on the import chain to this level. */
  readonly chain: readonly string[];
  readonly importedBy: string | undefined;
  /** Where this level's config is written (`''` for the machine, `fragment:<id>` for a fragment). */
  readonly base: string;
  /** The prefix the names of this level's entries will get from the imports above it. */
  readonly prefix: string;
}

type ImportRecord = { -readonly [K in keyof ResolvedFragmentImport]: ResolvedFragmentImport[K] };

/** What a level (the machine or one fragment) resolves to: its entries and its other keys. */
interface Resolved {
  readonly sections: Sections;
  readonly rest: Record<string, unknown>;
}

const hasOwn = Object.prototype.hasOwnProperty;

/** A copy of an object's own keys (its values shared). */
function shallowCopy(v: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) setOwn(out, k, v[k]);
  return out;
}

/** A deep copy of a JSON value whose objects keep every own key. */
function copyJson(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(copyJson);
  if (isObject(v)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) setOwn(out, k, copyJson(v[k]));
    return out;
  }
  return v;
}

/**
 * Resolves a machine's config by the rules at the top of this file. The inputs are never
 * changed; the result shares the values no rule changed with them (treat it as read-only).
 */
export function resolveMachineConfig(input: MachineConfigInput): MachineResolution {
  const imports: ImportRecord[] = [];
  const errors: FragmentResolutionError[] = [];
  const fail = (code: FragmentErrorCode, fragmentId: string | undefined, field: string, message: string, hint: string) => {
    const error = new FragmentResolutionError(code, {
      machine: input.machine,
      ...(fragmentId === undefined ? {} : { fragmentId }),
      field,
      message,
      hint,
    });
    errors.push(error);
    return error;
  };

  function parseImport(raw: unknown, field: string, importer: string | undefined): FragmentImportSpec | undefined {
    if (typeof raw === 'string' && raw !== '') return { id: raw };
    const bad = (what: string) => {
      fail(
        'bad-import',
        importer,
        field,
        what,
        'write an import as "<fragment id>" or {"id": "<fragment id>", "version"?, "prefix"?, "variables"?, "disabled"?}',
      );
      return undefined;
    };
    if (!isObject(raw) || typeof raw['id'] !== 'string' || raw['id'] === '') return bad('a fragment import needs a fragment id');
    const { version, prefix, variables, disabled } = raw;
    if (version !== undefined && typeof version !== 'string') return bad('version must be a string (a revision or a tag)');
    if (prefix !== undefined && typeof prefix !== 'string') return bad('prefix must be a string');
    if (variables !== undefined && !isObject(variables)) return bad('variables must be an object of name: value');
    if (disabled !== undefined && typeof disabled !== 'boolean') return bad('disabled must be true or false');
    return {
      id: raw['id'],
      ...(version === undefined || version === '' ? {} : { version }),
      ...(prefix === undefined || prefix === '' ? {} : { prefix }),
      ...(variables === undefined ? {} : { variables }),
      ...(disabled === undefined ? {} : { disabled }),
    };
  }

  /** A level's own entries and keys (copied), then its imports merged, its mods applied to them. */
  function resolveLevel(config: Readonly<Record<string, unknown>>, level: Level): Resolved {
    const sections: Sections = new Map();
    const rest: Record<string, unknown> = {};
    const owners = new Map<string, { entry: Record<string, unknown>; fromFragment: boolean; where: string }>();
    for (const key of Object.keys(config)) {
      if (key === 'fragments' || key === 'fragment_mods') continue;
      const value = config[key];
      if (isNamedSection(key) && Array.isArray(value) && value.every(isObject)) {
        // Entries are copied one level deep: prefixes replace their names; mods work on deep copies.
        const entries = value.map(shallowCopy);
        sections.set(key, entries);
        for (const entry of entries) {
          const name = entryName(key, entry);
          if (name !== undefined && !owners.has(`${key}\u0000${name}`))
            owners.set(`${key}\u0000${name}`, { entry, fromFragment: false, where: level.base || 'the machine' });
        }
      } else {
        setOwn(rest, key, value);
      }
    }
    const rawImports = config['fragments'];
    if (rawImports === undefined) return { sections, rest };
    const importsField = childPath(level.base, 'fragments');
    if (!Array.isArray(rawImports)) {
      fail(
        'bad-import',
        level.importedBy,
        importsField,
        'fragments must be a list of imports',
        'write "fragments": [{"id": "<fragment id>"}]',
      );
      return { sections, rest };
    }
    const brought: Array<{ spec: FragmentImportSpec; resolved: Resolved; record: ImportRecord }> = [];
    const seen = new Set<string>();
    const named = new Set<string>();
    rawImports.forEach((raw, i) => {
      const field = childPath(importsField, i);
      const spec = parseImport(raw, field, level.importedBy);
      if (!spec) return;
      named.add(spec.id);
      const key = `${spec.id}\u0000${spec.prefix ?? ''}`;
      if (seen.has(key)) {
        fail(
          'duplicate-import',
          spec.id,
          field,
          `fragment ${spec.id} is imported twice with the same prefix`,
          'give each import of one fragment its own prefix',
        );
        return;
      }
      seen.add(key);
      const result = resolveImport(spec, field, level);
      if (result) brought.push({ ...result, spec });
    });
    applyLevelMods(config['fragment_mods'], level, brought, named);
    for (const b of brought) {
      const entries: Array<{ section: NamedSection; name: string }> = [];
      for (const [section, list] of b.resolved.sections) {
        const target = sections.get(section) ?? [];
        sections.set(section, target);
        for (const entry of list) {
          const name = entryName(section, entry);
          if (name !== undefined) {
            const owner = owners.get(`${section}\u0000${name}`);
            if (owner) {
              if (owner.fromFragment && jsonEqual(owner.entry, entry)) continue;
              fail(
                'duplicate-name',
                b.spec.id,
                childPath(childPath(`fragment:${b.spec.id}`, section), name),
                `${section} entry ${JSON.stringify(name)} of fragment ${b.spec.id} has the name of one from ${owner.where}`,
                'rename one of them, or import the fragment with a prefix',
              );
              continue;
            }
            owners.set(`${section}\u0000${name}`, { entry, fromFragment: true, where: `fragment ${b.spec.id}` });
            entries.push({ section, name });
          }
          target.push(entry);
        }
      }
      for (const key of Object.keys(b.resolved.rest)) if (!hasOwn.call(rest, key)) setOwn(rest, key, b.resolved.rest[key]);
      b.record.entries = entries;
      b.record.config = assemble(b.resolved);
    }
    return { sections, rest };
  }

  /** One import: looked up, its variables filled, its own imports resolved, its names prefixed. */
  function resolveImport(spec: FragmentImportSpec, field: string, level: Level): { resolved: Resolved; record: ImportRecord } | undefined {
    const depth = level.depth + 1;
    const prefix = composePrefix(level.prefix, spec.prefix ?? '');
    const record = (extra: Partial<ImportRecord>): ImportRecord => {
      const r: ImportRecord = {
        id: spec.id,
        name: undefined,
        version: spec.version,
        revision: undefined,
        prefix,
        depth,
        importedBy: level.importedBy,
        field,
        disabled: spec.disabled === true,
        config: undefined,
        entries: [],
        error: undefined,
        ...extra,
      };
      imports.push(r);
      return r;
    };
    if (depth > FRAGMENT_NESTING_LIMIT) {
      record({
        error: fail(
          'nesting-limit',
          spec.id,
          field,
          `fragment ${spec.id} is ${depth} imports away from the machine; at most ${FRAGMENT_NESTING_LIMIT} are allowed`,
          'import the fragment closer to the machine, or flatten the fragments',
        ),
      });
      return undefined;
    }
    if (level.chain.includes(spec.id)) {
      const path = [...level.chain.slice(level.chain.indexOf(spec.id)), spec.id].join(' -> ');
      record({
        error: fail('cycle', spec.id, field, `fragment ${spec.id} imports itself (${path})`, 'remove one of the imports of the cycle'),
      });
      return undefined;
    }
    const found = input.fragments(spec.id, spec.version);
    if (found === 'unknown-fragment') {
      record({
        error: fail(
          'unknown-fragment',
          spec.id,
          field,
          `there is no fragment ${spec.id}`,
          'import an existing fragment id, or remove the import',
        ),
      });
      return undefined;
    }
    if (found === 'unknown-version') {
      record({
        error: fail(
          'unknown-version',
          spec.id,
          childPath(field, 'version'),
          `fragment ${spec.id} has no revision or tag ${JSON.stringify(spec.version)}`,
          'use one of its revisions or tags, or leave version out to follow the latest revision',
        ),
      });
      return undefined;
    }
    if (spec.disabled === true) {
      record({ name: found.name, revision: found.revision });
      return undefined;
    }
    const base = `fragment:${spec.id}`;
    const variables = spec.variables ?? {};
    const sub = substituteVariables(found.config, variables, base);
    for (const u of sub.unset) {
      fail(
        'unset-variable',
        spec.id,
        u.path,
        `variable ${JSON.stringify(u.name)} has no value; the placeholder is left as written`,
        `give it a value in the import's variables (${childPath(childPath(field, 'variables'), u.name)})`,
      );
    }
    for (const name of Object.keys(variables)) {
      if (!sub.read.has(name)) {
        fail(
          'unknown-variable',
          spec.id,
          childPath(childPath(field, 'variables'), name),
          `fragment ${spec.id} has no variable ${JSON.stringify(name)}`,
          "remove it, or check the spelling against the fragment's $variable names",
        );
      }
    }
    const rec = record({ name: found.name, revision: found.revision });
    const resolved = resolveLevel(sub.value as Record<string, unknown>, {
      depth,
      chain: [...level.chain, spec.id],
      importedBy: spec.id,
      base,
      prefix,
    });
    if (spec.prefix !== undefined) prefixNames(resolved.sections, spec.prefix);
    return { resolved, record: rec };
  }

  /** A level's `fragment_mods`, applied to copies of what its imports bring; kept only if every mod applies. */
  function applyLevelMods(
    raw: unknown,
    level: Level,
    brought: Array<{ spec: FragmentImportSpec; resolved: Resolved }>,
    named: ReadonlySet<string>,
  ): void {
    if (raw === undefined) return;
    const field = childPath(level.base, 'fragment_mods');
    if (!Array.isArray(raw)) {
      fail(
        'bad-mod',
        level.importedBy,
        field,
        'fragment_mods must be a list of {"fragment_id", "mods"}',
        'write "fragment_mods": [{"fragment_id": "<id>", "mods": [{"$set": {"<path>": value}}]}]',
      );
      return;
    }
    const trial = brought.map(
      (b) => new Map([...b.resolved.sections].map(([s, list]) => [s, copyJson(list) as Record<string, unknown>[]])) as Sections,
    );
    const failures: Array<{ fragmentId: string | undefined; field: string; message: string; code: FragmentErrorCode }> = [];
    raw.forEach((entry, i) => {
      const entryField = childPath(field, i);
      if (!isObject(entry) || typeof entry['fragment_id'] !== 'string') {
        failures.push({
          fragmentId: undefined,
          field: entryField,
          message: 'a fragment_mods entry needs a fragment_id and mods',
          code: 'bad-mod',
        });
        return;
      }
      const id = entry['fragment_id'];
      const targets = brought.flatMap((b, j) => (b.spec.id === id ? [trial[j] as Sections] : []));
      // Mods of an import that brings nothing (disabled, or failed and reported) wait for it.
      if (targets.length === 0 && named.has(id)) return;
      if (targets.length === 0) {
        failures.push({
          fragmentId: id,
          field: childPath(entryField, 'fragment_id'),
          message: `mods name fragment ${id}, which is not imported here`,
          code: 'mod-failed',
        });
        return;
      }
      // An import of the fragment twice (with two prefixes): a mod holds if it names something in either.
      const results = targets.map((t) => applyMods(t, entry['mods'], childPath(entryField, 'mods')));
      const shape = results[0]?.filter((f) => f.shape) ?? [];
      for (const f of shape) failures.push({ fragmentId: id, field: f.field, message: f.message, code: 'bad-mod' });
      const unmet = results[0]?.filter((f) => !f.shape && results.every((r) => r.some((g) => g.field === f.field))) ?? [];
      for (const f of unmet) failures.push({ fragmentId: id, field: f.field, message: f.message, code: 'mod-failed' });
    });
    if (failures.length === 0) {
      brought.forEach((b, j) => {
        b.resolved.sections.clear();
        trial[j]?.forEach((list, s) => b.resolved.sections.set(s, list));
      });
      return;
    }
    for (const f of failures) {
      fail(
        f.code,
        f.fragmentId,
        f.field,
        `${f.message}; no mod of this machine's fragment_mods is applied`,
        'fix or remove the mod: a mod must name an entry the fragment brings (by its name after prefixes)',
      );
    }
  }

  const root = resolveLevel(input.config, { depth: 0, chain: [], importedBy: undefined, base: '', prefix: '' });
  return { config: assemble(root), imports, errors };
}

/** Prefixes compose outer first: `front` over `cam` names an entry `front-cam-<name>`. */
function composePrefix(outer: string, inner: string): string {
  return outer !== '' && inner !== '' ? `${outer}-${inner}` : outer || inner;
}

/** A level's result as a config: its other keys, then its sections in their usual order. */
function assemble(r: Resolved): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(r.rest)) setOwn(out, key, r.rest[key]);
  for (const section of NAMED_SECTIONS) {
    const list = r.sections.get(section);
    // A section the machine wrote as a list of other things keeps them, before what fragments bring.
    const own = r.rest[section];
    if (list !== undefined) setOwn(out, section, Array.isArray(own) ? [...(own as unknown[]), ...list] : list);
  }
  return out;
}

/** Prefixes the names of components and services, and `depends_on` entries naming them. */
function prefixNames(sections: Sections, prefix: string): void {
  const names = new Set<string>();
  for (const section of ['components', 'services'] as const) {
    for (const entry of sections.get(section) ?? []) {
      const name = entryName(section, entry);
      if (name !== undefined) names.add(name);
    }
  }
  for (const section of ['components', 'services'] as const) {
    for (const entry of sections.get(section) ?? []) {
      const name = entryName(section, entry);
      if (name !== undefined) entry['name'] = `${prefix}-${name}`;
      const deps = entry['depends_on'];
      if (Array.isArray(deps)) entry['depends_on'] = deps.map((d) => (typeof d === 'string' && names.has(d) ? `${prefix}-${d}` : d));
    }
  }
}
