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
  const run: Run = { machine: input.machine, lookup: input.fragments, imports: [], errors: [] };
  const root = resolveLevel(run, input.config, { depth: 0, chain: [], importedBy: undefined, base: '', prefix: '' });
  return { config: assemble(root), imports: run.imports, errors: run.errors };
}

/** One resolution as it goes: the fragments it looks up, and every import and error met, in the order met. */
interface Run {
  readonly machine: string;
  readonly lookup: FragmentLookup;
  readonly imports: ImportRecord[];
  readonly errors: FragmentResolutionError[];
}

/** A problem a step finds, before it is told as an error of the machine. */
interface Problem {
  readonly code: FragmentErrorCode;
  readonly fragmentId: string | undefined;
  readonly field: string;
  readonly message: string;
  readonly hint: string;
}

/** Tells a problem as an error of the run's machine, in the order met. */
function report(run: Run, problem: Problem): FragmentResolutionError {
  const { code, fragmentId, field, message, hint } = problem;
  const error = new FragmentResolutionError(code, {
    machine: run.machine,
    ...(fragmentId === undefined ? {} : { fragmentId }),
    field,
    message,
    hint,
  });
  run.errors.push(error);
  return error;
}

/** The entries a level holds by section and name, with where each came from (the first of a name wins). */
type Owners = Map<string, { entry: Record<string, unknown>; fromFragment: boolean; where: string }>;

function ownerKey(section: NamedSection, name: string): string {
  return `${section}\u0000${name}`;
}

/** What one import brings, and the record that reports it. */
interface Brought {
  readonly spec: FragmentImportSpec;
  readonly resolved: Resolved;
  readonly record: ImportRecord;
}

/** A level's own entries and keys (copied), then its imports merged, its mods applied to them. */
function resolveLevel(run: Run, config: Readonly<Record<string, unknown>>, level: Level): Resolved {
  const own = ownEntries(config, level);
  const resolved: Resolved = { sections: own.sections, rest: own.rest };
  const rawImports = config['fragments'];
  if (rawImports === undefined) return resolved;
  if (!Array.isArray(rawImports)) {
    report(run, {
      code: 'bad-import',
      fragmentId: level.importedBy,
      field: childPath(level.base, 'fragments'),
      message: 'fragments must be a list of imports',
      hint: 'write "fragments": [{"id": "<fragment id>"}]',
    });
    return resolved;
  }
  const { brought, named } = resolveImports(run, rawImports, level);
  applyLevelMods(run, config['fragment_mods'], level, brought, named);
  for (const b of brought) mergeImport(run, own, b);
  return resolved;
}

/** A level's own entries (copied one level deep: prefixes replace their names; mods work on deep copies) and other keys. */
function ownEntries(config: Readonly<Record<string, unknown>>, level: Level): Resolved & { readonly owners: Owners } {
  const sections: Sections = new Map();
  const rest: Record<string, unknown> = {};
  const owners: Owners = new Map();
  for (const key of Object.keys(config)) {
    if (key === 'fragments' || key === 'fragment_mods') continue;
    const value = config[key];
    if (!isNamedSection(key) || !Array.isArray(value) || !value.every(isObject)) {
      setOwn(rest, key, value);
      continue;
    }
    const entries = value.map(shallowCopy);
    sections.set(key, entries);
    for (const entry of entries) {
      const name = entryName(key, entry);
      if (name !== undefined && !owners.has(ownerKey(key, name)))
        owners.set(ownerKey(key, name), { entry, fromFragment: false, where: level.base || 'the machine' });
    }
  }
  return { sections, rest, owners };
}

/** A level's imports, each parsed and resolved; `named` holds every fragment id they name. */
function resolveImports(run: Run, rawImports: readonly unknown[], level: Level): { brought: Brought[]; named: Set<string> } {
  const importsField = childPath(level.base, 'fragments');
  const brought: Brought[] = [];
  const seen = new Set<string>();
  const named = new Set<string>();
  rawImports.forEach((raw, i) => {
    const field = childPath(importsField, i);
    const parsed = parseImport(raw, field, level.importedBy);
    if ('problem' in parsed) {
      report(run, parsed.problem);
      return;
    }
    const spec = parsed.spec;
    named.add(spec.id);
    const key = `${spec.id}\u0000${spec.prefix ?? ''}`;
    if (seen.has(key)) {
      report(run, {
        code: 'duplicate-import',
        fragmentId: spec.id,
        field,
        message: `fragment ${spec.id} is imported twice with the same prefix`,
        hint: 'give each import of one fragment its own prefix',
      });
      return;
    }
    seen.add(key);
    const result = resolveImport(run, spec, field, level);
    if (result) brought.push({ ...result, spec });
  });
  return { brought, named };
}

/** A `fragments` entry read as an import, or why it is not one. */
function parseImport(raw: unknown, field: string, importer: string | undefined): { spec: FragmentImportSpec } | { problem: Problem } {
  if (typeof raw === 'string' && raw !== '') return { spec: { id: raw } };
  const bad = (message: string) => ({
    problem: {
      code: 'bad-import' as const,
      fragmentId: importer,
      field,
      message,
      hint: 'write an import as "<fragment id>" or {"id": "<fragment id>", "version"?, "prefix"?, "variables"?, "disabled"?}',
    },
  });
  if (!isObject(raw) || typeof raw['id'] !== 'string' || raw['id'] === '') return bad('a fragment import needs a fragment id');
  const { version, prefix, variables, disabled } = raw;
  if (version !== undefined && typeof version !== 'string') return bad('version must be a string (a revision or a tag)');
  if (prefix !== undefined && typeof prefix !== 'string') return bad('prefix must be a string');
  if (variables !== undefined && !isObject(variables)) return bad('variables must be an object of name: value');
  if (disabled !== undefined && typeof disabled !== 'boolean') return bad('disabled must be true or false');
  return {
    spec: {
      id: raw['id'],
      ...(version === undefined || version === '' ? {} : { version }),
      ...(prefix === undefined || prefix === '' ? {} : { prefix }),
      ...(variables === undefined ? {} : { variables }),
      ...(disabled === undefined ? {} : { disabled }),
    },
  };
}

/** The ids of the fragments a config imports itself (its `fragments` entries that read as imports). */
export function importedFragmentIds(config: Readonly<Record<string, unknown>>): Set<string> {
  const list = config['fragments'];
  const ids = new Set<string>();
  if (!Array.isArray(list)) return ids;
  for (const [i, raw] of list.entries()) {
    const parsed = parseImport(raw, `fragments[${i}]`, undefined);
    if ('spec' in parsed) ids.add(parsed.spec.id);
  }
  return ids;
}

/** One import: looked up, its variables filled, its own imports resolved, its names prefixed. */
function resolveImport(
  run: Run,
  spec: FragmentImportSpec,
  field: string,
  level: Level,
): { resolved: Resolved; record: ImportRecord } | undefined {
  const depth = level.depth + 1;
  const record = importRecord(spec, field, level);
  const refused = refusedImport(spec, field, level);
  if (refused) {
    run.imports.push({ ...record, error: report(run, refused) });
    return undefined;
  }
  const found = run.lookup(spec.id, spec.version);
  if (typeof found === 'string') {
    run.imports.push({ ...record, error: report(run, lookupProblem(spec, field, found)) });
    return undefined;
  }
  const met: ImportRecord = { ...record, name: found.name, revision: found.revision };
  run.imports.push(met);
  if (spec.disabled === true) return undefined;
  const base = `fragment:${spec.id}`;
  const sub = substituteVariables(found.config, spec.variables ?? {}, base);
  for (const problem of variableProblems(spec, field, sub)) report(run, problem);
  const resolved = resolveLevel(run, sub.value as Record<string, unknown>, {
    depth,
    chain: [...level.chain, spec.id],
    importedBy: spec.id,
    base,
    prefix: record.prefix,
  });
  if (spec.prefix !== undefined) prefixNames(resolved.sections, spec.prefix);
  return { resolved, record: met };
}

/** The record of an import met, before its lookup: nothing found, nothing brought. */
function importRecord(spec: FragmentImportSpec, field: string, level: Level): ImportRecord {
  return {
    id: spec.id,
    name: undefined,
    version: spec.version,
    revision: undefined,
    prefix: composePrefix(level.prefix, spec.prefix ?? ''),
    depth: level.depth + 1,
    importedBy: level.importedBy,
    field,
    disabled: spec.disabled === true,
    config: undefined,
    entries: [],
    error: undefined,
  };
}

/** An import too deep, or one reached again on its own import chain: refused before its lookup. */
function refusedImport(spec: FragmentImportSpec, field: string, level: Level): Problem | undefined {
  const depth = level.depth + 1;
  if (depth > FRAGMENT_NESTING_LIMIT) {
    return {
      code: 'nesting-limit',
      fragmentId: spec.id,
      field,
      message: `fragment ${spec.id} is ${depth} imports away from the machine; at most ${FRAGMENT_NESTING_LIMIT} are allowed`,
      hint: 'import the fragment closer to the machine, or flatten the fragments',
    };
  }
  if (!level.chain.includes(spec.id)) return undefined;
  const path = [...level.chain.slice(level.chain.indexOf(spec.id)), spec.id].join(' -> ');
  return {
    code: 'cycle',
    fragmentId: spec.id,
    field,
    message: `fragment ${spec.id} imports itself (${path})`,
    hint: 'remove one of the imports of the cycle',
  };
}

/** An import whose fragment, or version of it, the lookup does not know. */
function lookupProblem(spec: FragmentImportSpec, field: string, missing: 'unknown-fragment' | 'unknown-version'): Problem {
  if (missing === 'unknown-fragment') {
    return {
      code: 'unknown-fragment',
      fragmentId: spec.id,
      field,
      message: `there is no fragment ${spec.id} this machine's organization can read (no fragment has that id, or it is another organization's private fragment)`,
      hint: "import an existing fragment id (your organization's, or a public or unlisted one), or remove the import",
    };
  }
  return {
    code: 'unknown-version',
    fragmentId: spec.id,
    field: childPath(field, 'version'),
    message: `fragment ${spec.id} has no revision or tag ${JSON.stringify(spec.version)}`,
    hint: 'use one of its revisions or tags, or leave version out to follow the latest revision',
  };
}

/** Placeholders an import leaves unset, then variables it gives that its fragment never reads. */
function variableProblems(spec: FragmentImportSpec, field: string, sub: ReturnType<typeof substituteVariables>): Problem[] {
  const variablesField = childPath(field, 'variables');
  const unset = sub.unset.map((u) => ({
    code: 'unset-variable' as const,
    fragmentId: spec.id,
    field: u.path,
    message: `variable ${JSON.stringify(u.name)} has no value; the placeholder is left as written`,
    hint: `give it a value in the import's variables (${childPath(variablesField, u.name)})`,
  }));
  const unread = Object.keys(spec.variables ?? {})
    .filter((name) => !sub.read.has(name))
    .map((name) => ({
      code: 'unknown-variable' as const,
      fragmentId: spec.id,
      field: childPath(variablesField, name),
      message: `fragment ${spec.id} has no variable ${JSON.stringify(name)}`,
      hint: "remove it, or check the spelling against the fragment's $variable names",
    }));
  return [...unset, ...unread];
}

/**
 * What an import brings, merged into its level by section and name: an entry named like an
 * earlier one is an error (unless both come from imports and are equal: kept once); other
 * keys fill only those the level lacks. Fills in the import's record.
 */
function mergeImport(run: Run, level: Resolved & { readonly owners: Owners }, b: Brought): void {
  const entries: Array<{ section: NamedSection; name: string }> = [];
  for (const [section, list] of b.resolved.sections) {
    const target = level.sections.get(section) ?? [];
    level.sections.set(section, target);
    for (const entry of list) {
      const name = entryName(section, entry);
      if (name === undefined) {
        target.push(entry);
        continue;
      }
      const owner = level.owners.get(ownerKey(section, name));
      if (owner) {
        if (!owner.fromFragment || !jsonEqual(owner.entry, entry)) report(run, duplicateName(b.spec.id, section, name, owner.where));
        continue;
      }
      level.owners.set(ownerKey(section, name), { entry, fromFragment: true, where: `fragment ${b.spec.id}` });
      entries.push({ section, name });
      target.push(entry);
    }
  }
  for (const key of Object.keys(b.resolved.rest)) if (!hasOwn.call(level.rest, key)) setOwn(level.rest, key, b.resolved.rest[key]);
  b.record.entries = entries;
  b.record.config = assemble(b.resolved);
}

function duplicateName(fragmentId: string, section: NamedSection, name: string, where: string): Problem {
  return {
    code: 'duplicate-name',
    fragmentId,
    field: childPath(childPath(`fragment:${fragmentId}`, section), name),
    message: `${section} entry ${JSON.stringify(name)} of fragment ${fragmentId} has the name of one from ${where}`,
    hint: 'rename one of them, or import the fragment with a prefix',
  };
}

/** A level's `fragment_mods`, applied to copies of what its imports bring; kept only if every mod applies. */
function applyLevelMods(run: Run, raw: unknown, level: Level, brought: readonly Brought[], named: ReadonlySet<string>): void {
  if (raw === undefined) return;
  const field = childPath(level.base, 'fragment_mods');
  if (!Array.isArray(raw)) {
    report(run, {
      code: 'bad-mod',
      fragmentId: level.importedBy,
      field,
      message: 'fragment_mods must be a list of {"fragment_id", "mods"}',
      hint: 'write "fragment_mods": [{"fragment_id": "<id>", "mods": [{"$set": {"<path>": value}}]}]',
    });
    return;
  }
  const trial = brought.map(
    (b) => new Map([...b.resolved.sections].map(([s, list]) => [s, copyJson(list) as Record<string, unknown>[]])) as Sections,
  );
  const failures = raw.flatMap((entry, i) => modEntryFailures(entry, childPath(field, i), brought, trial, named));
  if (failures.length === 0) {
    brought.forEach((b, j) => {
      b.resolved.sections.clear();
      trial[j]?.forEach((list, s) => b.resolved.sections.set(s, list));
    });
    return;
  }
  for (const f of failures) {
    report(run, {
      ...f,
      message: `${f.message}; no mod of this machine's fragment_mods is applied`,
      hint: 'fix or remove the mod: a mod must name an entry the fragment brings (by its name after prefixes)',
    });
  }
}

/** Why one `fragment_mods` entry does not apply to the trial copies of the imports it names (nothing when it does). */
function modEntryFailures(
  entry: unknown,
  entryField: string,
  brought: readonly Brought[],
  trial: readonly Sections[],
  named: ReadonlySet<string>,
): Array<Omit<Problem, 'hint'>> {
  if (!isObject(entry) || typeof entry['fragment_id'] !== 'string') {
    return [{ fragmentId: undefined, field: entryField, message: 'a fragment_mods entry needs a fragment_id and mods', code: 'bad-mod' }];
  }
  const id = entry['fragment_id'];
  const targets = brought.flatMap((b, j) => (b.spec.id === id ? [trial[j] as Sections] : []));
  // Mods of an import that brings nothing (disabled, or failed and reported) wait for it.
  if (targets.length === 0 && named.has(id)) return [];
  if (targets.length === 0) {
    return [
      {
        fragmentId: id,
        field: childPath(entryField, 'fragment_id'),
        message: `mods name fragment ${id}, which is not imported here`,
        code: 'mod-failed',
      },
    ];
  }
  // An import of the fragment twice (with two prefixes): a mod holds if it names something in either.
  const results = targets.map((t) => applyMods(t, entry['mods'], childPath(entryField, 'mods')));
  const first = results[0] ?? [];
  const shape = first.filter((f) => f.shape).map((f) => ({ fragmentId: id, field: f.field, message: f.message, code: 'bad-mod' as const }));
  const unmet = first
    .filter((f) => !f.shape && results.every((r) => r.some((g) => g.field === f.field)))
    .map((f) => ({ fragmentId: id, field: f.field, message: f.message, code: 'mod-failed' as const }));
  return [...shape, ...unmet];
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
