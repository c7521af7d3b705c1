import type { FragmentVisibility } from '../../api/client';
import { fragmentResource, fragmentTagResource } from '../../domain/resource-attributes';
import { fragmentTagId } from '../kinds/fragment-tag';
import { fragmentConfigCode, type ImportCode } from './fragment-code';
import type { InventoryFragment } from './inventory';
import type { MachineConfigCode } from './machine-code';
import type { ConstructIds } from './names';

/** How code refers to an object: a construct of the generated file, or an id it keeps as text. */
export type Reference = { readonly construct: string } | { readonly id: string };

/** One `useFragment(fragment, {...})` of a machine or fragment. */
export type ImportDecl = Omit<ImportCode, 'fragmentId'> & {
  readonly fragment: Reference;
  /** The fragment's name, or its id when it is another organization's. */
  readonly label: string;
  /** Variables read from the environment at synth (variable -> environment variable), left out of `variables`. */
  readonly secretVariables?: Readonly<Record<string, string>>;
};

/** A `FragmentTag` of an adopted fragment, naming the revision it names on the service. */
export interface FragmentTagDecl {
  readonly constructId: string;
  readonly tag: string;
  readonly revision: string;
}

/** A `Fragment` with its config, its nested imports and its tags. */
export interface FragmentDecl {
  readonly constructId: string;
  readonly id: string;
  readonly name: string;
  readonly visibility: FragmentVisibility;
  readonly config: MachineConfigCode;
  readonly imports: readonly ImportDecl[];
  readonly tags: readonly FragmentTagDecl[];
}

export interface FragmentPlan {
  /** Nested fragments before the fragments importing them. */
  readonly fragments: readonly FragmentDecl[];
  /** The imports as code refers to their fragments, or why one cannot be declared (its fragment is left out). */
  resolve(
    imports: readonly ImportCode[],
  ): { readonly ok: true; readonly imports: readonly ImportDecl[] } | { readonly ok: false; readonly reason: string };
}

interface Sink {
  readonly ids: ConstructIds;
  managedAs(type: string, id: string): boolean;
  skip(what: string, reason: string): void;
  adopt(address: string, id: string): void;
}

const FRAGMENT = fragmentResource.type;
const TAG = fragmentTagResource.type;

type Candidate = { readonly source: InventoryFragment; readonly config: MachineConfigCode; readonly imports: readonly ImportCode[] };

const label = (f: InventoryFragment): string => `fragment ${f.fragment.name} (${f.fragment.id})`;

/** The candidates on an import cycle: code declares a fragment only after those it imports. */
function onCycles(candidates: ReadonlyMap<string, Candidate>): Set<string> {
  const state = new Map<string, 'open' | 'done'>();
  const cyclic = new Set<string>();
  const stack: string[] = [];
  const visit = (id: string): void => {
    state.set(id, 'open');
    stack.push(id);
    for (const i of candidates.get(id)?.imports ?? []) {
      if (!candidates.has(i.fragmentId)) continue;
      const seen = state.get(i.fragmentId);
      if (seen === 'open') for (const c of stack.slice(stack.indexOf(i.fragmentId))) cyclic.add(c);
      else if (seen === undefined) visit(i.fragmentId);
    }
    stack.pop();
    state.set(id, 'done');
  };
  for (const id of candidates.keys()) if (!state.has(id)) visit(id);
  return cyclic;
}

/** The candidates, each after every candidate it imports (no cycles left). */
function importedFirst(candidates: ReadonlyMap<string, Candidate>): Candidate[] {
  const out: Candidate[] = [];
  const placed = new Set<string>();
  const place = (id: string): void => {
    const c = candidates.get(id);
    if (!c || placed.has(id)) return;
    placed.add(id);
    for (const i of c.imports) place(i.fragmentId);
    out.push(c);
  };
  for (const id of candidates.keys()) place(id);
  return out;
}

/**
 * The organization's fragments as declarations, by name: a `Fragment` each with its tags,
 * nested fragments first. A fragment another stack manages is referred to by id (its tags
 * are left to that stack); one whose config code cannot declare exactly, one on an import
 * cycle, one named like an earlier one and one importing a fragment left out are left
 * out, named, with their tags.
 * Fragments of other organizations are never adopted: imports of them keep their id.
 */
export function planFragments(owned: readonly InventoryFragment[], sink: Sink): FragmentPlan {
  const keyOf = (f: InventoryFragment): string => `${f.fragment.name}\u0000${f.fragment.id}`;
  const byName = (a: InventoryFragment, b: InventoryFragment) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0);
  const candidates = new Map<string, Candidate>();
  const leftOut = new Map<string, InventoryFragment>();
  const leaveOut = (f: InventoryFragment, reason: string): void => {
    sink.skip(label(f), reason);
    leftOut.set(f.fragment.id, f);
    candidates.delete(f.fragment.id);
    for (const t of f.tags) sink.skip(`tag ${t.tag} of fragment ${f.fragment.name}`, 'its fragment is left out');
  };
  const named = new Map<string, InventoryFragment>();
  for (const f of [...owned].sort(byName)) {
    if (sink.managedAs(FRAGMENT, f.fragment.id)) {
      sink.skip(label(f), 'another stack manages it');
      continue;
    }
    // Code gives each fragment of an organization its own name.
    const namesake = named.get(f.fragment.name);
    if (namesake) {
      leaveOut(f, `${label(namesake)} has its name, and fleetform declares one fragment per name`);
      continue;
    }
    named.set(f.fragment.name, f);
    const made = fragmentConfigCode(f.fragment.config, f.fragment.name);
    if (made.ok) candidates.set(f.fragment.id, { source: f, config: made.code, imports: made.imports });
    else leaveOut(f, made.reason);
  }
  for (const id of onCycles(candidates)) {
    const c = candidates.get(id);
    if (c) leaveOut(c.source, 'it imports itself through its nested fragments');
  }
  for (let changed = true; changed;) {
    changed = false;
    for (const c of [...candidates.values()]) {
      const missing = c.imports.map((i) => leftOut.get(i.fragmentId)).find((f) => f !== undefined);
      if (!missing) continue;
      leaveOut(c.source, `it imports ${label(missing)}, which is left out`);
      changed = true;
    }
  }

  const constructOf = new Map<string, string>();
  const names = new Map(owned.map((f) => [f.fragment.id, f.fragment.name]));
  const resolve: FragmentPlan['resolve'] = (imports) => {
    const out: ImportDecl[] = [];
    for (const { fragmentId, ...options } of imports) {
      const missing = leftOut.get(fragmentId);
      if (missing) return { ok: false, reason: `it imports ${label(missing)}, which is left out` };
      const construct = constructOf.get(fragmentId);
      out.push({ fragment: construct ? { construct } : { id: fragmentId }, label: names.get(fragmentId) ?? fragmentId, ...options });
    }
    return { ok: true, imports: out };
  };

  const fragments: FragmentDecl[] = [];
  for (const { source, config, imports } of importedFirst(candidates)) {
    const { id, name, visibility } = source.fragment;
    const constructId = sink.ids.take(name, 'fragment');
    const nested = resolve(imports);
    constructOf.set(id, constructId);
    sink.adopt(`${FRAGMENT}.${constructId}`, id);
    const tags: FragmentTagDecl[] = [];
    for (const t of [...source.tags].sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0))) {
      const tagId = fragmentTagId(id, t.tag);
      if (sink.managedAs(TAG, tagId)) {
        sink.skip(`tag ${t.tag} of fragment ${name}`, 'another stack manages it');
        continue;
      }
      const tagConstruct = sink.ids.take(`${name}-${t.tag}`, 'tag');
      tags.push({ constructId: tagConstruct, tag: t.tag, revision: t.revision });
      sink.adopt(`${TAG}.${tagConstruct}`, tagId);
    }
    fragments.push({ constructId, id, name, visibility, config, imports: nested.ok ? nested.imports : [], tags });
  }
  return { fragments, resolve };
}
