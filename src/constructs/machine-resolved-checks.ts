/**
 * What a machine runs when every fragment it reaches is one the stack declares, at the
 * revision its apply saves: its config resolved from those declarations, so what the
 * fragments bring (a module, a dependency's target) is judged in code as at plan. An import
 * of a fragment by its service id, or at a version (a revision or a tag), is read from the
 * service: such a machine is judged at plan.
 */
import type { IConstruct } from 'constructs';
import { inCode, namedPath, type Acknowledgment } from '../domain/certainty';
import {
  FRAGMENT_RESOLVED_ISSUES,
  leavesImportOut,
  resolveMachineConfig,
  type FragmentAtVersion,
  type MachineResolution,
} from '../domain/fragments';
import type { Issue, ValidationResult } from '../domain/issue';
import { isObject } from '../domain/json-value';
import { validateMachineConfig } from '../domain/validate';
import { fragmentConfigKeys, fragmentImportsOf, type IFragment } from './fragment-imports';
import { perGeneration } from './generation';
import { constructTypeOf } from './construct-types';
import { assembleMachine } from './machine-config';
import type { IMachine } from './machine-parts';
import { FRAGMENT_KIND } from './machine-scope';
import { Secret } from './secret';

/** The id a declared fragment is looked up by in code (its service id is known only once it exists). */
function declaredId(fragment: IFragment | string): string {
  return typeof fragment === 'string' ? fragment : `declared:${fragment.node.path}`;
}

/** The `fragments` and `fragment_mods` keys of a holder, imports by declared id, secret variables as a stand-in text. */
function importKeys(holder: IConstruct): Record<string, unknown> {
  const keys = fragmentConfigKeys(holder, declaredId);
  const fragments = keys.fragments?.map((entry) => {
    if (typeof entry === 'string' || !isObject(entry.variables)) return entry;
    const variables = Object.fromEntries(
      Object.entries(entry.variables).map(([name, value]) => [name, Secret.isSecret(value) ? 'secret' : value]),
    );
    return { ...entry, variables };
  });
  return { ...(fragments ? { fragments } : {}), ...(keys.fragment_mods ? { fragment_mods: keys.fragment_mods } : {}) };
}

/** A fragment's config as the stack declares it, assembled once per generation however many machines import it (shared: not mutated). */
const declaredConfig = perGeneration((fragment: IFragment): Record<string, unknown> => ({
  ...assembleMachine(fragment as unknown as IMachine).config,
  ...importKeys(fragment),
}));

/** Adds the fragments a holder reaches to `into`; false when one is not known in code (by id, at a version, of no Fragment). */
function collectDeclared(holder: IConstruct, into: Map<string, FragmentAtVersion>): boolean {
  for (const { fragment, options } of fragmentImportsOf(holder)) {
    if (typeof fragment === 'string' || constructTypeOf(fragment) !== FRAGMENT_KIND || options.version !== undefined) return false;
    const id = declaredId(fragment);
    if (into.has(id)) continue;
    into.set(id, { id, name: fragment.name, revision: 'declared', config: declaredConfig(fragment) });
    if (!collectDeclared(fragment, into)) return false;
  }
  return true;
}

/** The machine's config resolved with the fragments the stack declares; undefined when one it reaches is read from the service. */
export function resolvedInCode(machine: IMachine, config: Readonly<Record<string, unknown>>): MachineResolution | undefined {
  const declared = new Map<string, FragmentAtVersion>();
  if (!collectDeclared(machine, declared)) return undefined;
  return resolveMachineConfig({
    machine: machine.name,
    config: { ...config, ...importKeys(machine) },
    fragments: (id) => declared.get(id) ?? 'unknown-fragment',
  });
}

const ENTRY_INDEX = /^(components|services|modules)\[(\d+)\]/;

/** An issue of an entry a fragment brings: its path by entry name, its message naming the fragment. */
function locateBrought(issue: Issue, own: Readonly<Record<string, unknown>>, resolution: MachineResolution): Issue {
  const m = ENTRY_INDEX.exec(issue.path);
  const section = m?.[1] as string;
  const ownList = own[section];
  if (!m || Number(m[2]) < (Array.isArray(ownList) ? ownList.length : 0)) return issue;
  const path = namedPath(resolution.config, issue.path);
  const name = path.slice(section.length + 1).split(/[.[]/)[0];
  const source = resolution.imports.find((i) => i.entries.some((e) => e.section === section && e.name === name));
  return source ? { ...issue, path, message: `fragment ${source.name ?? source.id}: ${issue.message}` } : { ...issue, path };
}

/**
 * The findings of a machine's own config, with those only what it runs can judge (see
 * FRAGMENT_RESOLVED_ISSUES) taken from its resolved config, judged in code: a certain
 * failure is an error unless acknowledged. An import the machine runs without (a cycle, the
 * nesting limit) may bring what they lack: then they are only possible.
 */
export function judgedResolved(
  found: ValidationResult,
  own: Readonly<Record<string, unknown>>,
  resolution: MachineResolution,
  acknowledged: readonly Acknowledgment[],
): ValidationResult {
  const resolved = validateMachineConfig(resolution.config, { allowUnpinnedModules: true });
  const ownOnly = (i: Issue): boolean => !FRAGMENT_RESOLVED_ISSUES.has(i.code);
  const runs = (i: Issue): boolean => FRAGMENT_RESOLVED_ISSUES.has(i.code);
  const merged: ValidationResult = {
    errors: [...found.errors.filter(ownOnly), ...resolved.errors.filter(runs).map((i) => locateBrought(i, own, resolution))],
    warnings: [...found.warnings.filter(ownOnly), ...resolved.warnings.filter(runs).map((i) => locateBrought(i, own, resolution))],
  };
  const complete = !resolution.errors.some(leavesImportOut);
  return inCode(merged, resolution.config, acknowledged, complete ? {} : { onlyPossible: FRAGMENT_RESOLVED_ISSUES });
}
