import { variableName, VARIABLE_NAME_PATTERN } from '../../domain/fragments';
import { isSecretEnvEntry } from '../../domain/module-env';
import { isObject, type JsonObject, type JsonValue } from '../json';
import { machineConfigCode, type MachineConfigCode } from './machine-code';

/** One fragment import of a machine or fragment, as `useFragment(fragment, {...})` will declare it. */
export interface ImportCode {
  readonly fragmentId: string;
  readonly version?: string;
  readonly prefix?: string;
  readonly variables?: JsonObject;
  readonly disabled?: boolean;
  /** The import's `fragment_mods` entry's mods: on the first import of its fragment. */
  readonly mods?: readonly JsonObject[];
  /** Written as the fragment's bare id (the older form), as the config has it. */
  readonly bareId?: boolean;
}

export type ImportsResult =
  { readonly ok: true; readonly imports: readonly ImportCode[] } | { readonly ok: false; readonly reason: string };

const IMPORT_KEYS = new Set(['id', 'version', 'prefix', 'variables', 'disabled']);
const MOD_ENTRY_KEYS = new Set(['fragment_id', 'mods']);
const MOD_KEYS = new Set(['$set', '$unset']);

function stray(entry: JsonObject, allowed: ReadonlySet<string>): string[] {
  return Object.keys(entry).filter((k) => !allowed.has(k));
}

function importCode(raw: JsonValue, at: number): ImportCode | string {
  // A bare id is the import `{ id }` (it follows the latest revision), kept in the form written.
  if (typeof raw === 'string') return raw === '' ? `fragments entry ${at} has no fragment id` : { fragmentId: raw, bareId: true };
  if (!isObject(raw)) return `fragments entry ${at} is not an object`;
  const extra = stray(raw, IMPORT_KEYS);
  if (extra.length > 0) return `fragments entry ${at} has keys fleetform does not declare: ${extra.join(', ')}`;
  const { id, version, prefix, variables, disabled } = raw;
  if (typeof id !== 'string' || id === '') return `fragments entry ${at} has no fragment id`;
  if (version !== undefined && (typeof version !== 'string' || version === ''))
    return `the import of fragment ${id} has a version that is not a revision or tag`;
  if (prefix !== undefined && (typeof prefix !== 'string' || prefix === ''))
    return `the import of fragment ${id} has a prefix that is not a name`;
  if (variables !== undefined && !isObject(variables)) return `the import of fragment ${id} has variables that are not an object`;
  if (disabled !== undefined && typeof disabled !== 'boolean')
    return `the import of fragment ${id} has a disabled that is not true or false`;
  return {
    fragmentId: id,
    ...(version === undefined ? {} : { version }),
    ...(prefix === undefined ? {} : { prefix }),
    ...(variables === undefined ? {} : { variables }),
    ...(disabled === undefined ? {} : { disabled }),
  };
}

/**
 * The imports of a config (`fragments`, with `fragment_mods` on the first import of each
 * fragment), or why code cannot write them back exactly: code writes each import as an
 * object or, as written, its bare id, and one `fragment_mods` entry of non-empty mods per imported fragment, in the
 * order of their first imports.
 */
export function importsCode(config: Readonly<Record<string, unknown>>): ImportsResult {
  const rawImports = config.fragments ?? [];
  const rawMods = config.fragment_mods ?? [];
  if (!Array.isArray(rawImports)) return { ok: false, reason: 'its fragments is not a list' };
  if (!Array.isArray(rawMods)) return { ok: false, reason: 'its fragment_mods is not a list' };
  const imports: ImportCode[] = [];
  for (const [at, raw] of (rawImports as JsonValue[]).entries()) {
    const made = importCode(raw, at);
    if (typeof made === 'string') return { ok: false, reason: made };
    imports.push(made);
  }
  const firstImports = [...new Set(imports.map((i) => i.fragmentId))];
  const mods = new Map<string, JsonObject[]>();
  for (const raw of rawMods as JsonValue[]) {
    if (!isObject(raw) || stray(raw, MOD_ENTRY_KEYS).length > 0 || typeof raw.fragment_id !== 'string' || !Array.isArray(raw.mods)) {
      return { ok: false, reason: 'a fragment_mods entry that is not {fragment_id, mods}' };
    }
    const id = raw.fragment_id;
    if (!firstImports.includes(id)) return { ok: false, reason: `fragment_mods of fragment ${id}, which it does not import` };
    if (mods.has(id)) return { ok: false, reason: `two fragment_mods entries of fragment ${id}` };
    if (raw.mods.length === 0) return { ok: false, reason: `an empty fragment_mods entry of fragment ${id}` };
    for (const mod of raw.mods) {
      if (!isObject(mod) || stray(mod, MOD_KEYS).length > 0 || Object.values(mod).some((v) => !isObject(v))) {
        return { ok: false, reason: `a mod of fragment ${id} other than $set and $unset of paths` };
      }
    }
    mods.set(id, raw.mods as JsonObject[]);
  }
  const order = firstImports.filter((id) => mods.has(id));
  if (order.join('\u0000') !== [...mods.keys()].join('\u0000'))
    return { ok: false, reason: 'fragment_mods in another order than the imports they modify' };
  const withMods = imports.map((i) => {
    const own = mods.get(i.fragmentId);
    if (!own) return i;
    mods.delete(i.fragmentId);
    return { ...i, mods: own };
  });
  return { ok: true, imports: withMods };
}

export type FragmentCodeResult =
  | { readonly ok: true; readonly code: MachineConfigCode; readonly imports: readonly ImportCode[] }
  | { readonly ok: false; readonly reason: string };

/**
 * The code of a fragment's config: its modules, resources and packages as a machine's,
 * and its nested imports. A fragment whose config holds a section code cannot declare in a
 * fragment, or a secret env entry (a fragment's config is readable by every importer, so
 * code never holds its secrets), cannot be declared exactly.
 */
export function fragmentConfigCode(config: Record<string, unknown>, name: string): FragmentCodeResult {
  const made = machineConfigCode(config, name);
  if (!made.ok) return made;
  if (made.untouched.length > 0)
    return { ok: false, reason: `config sections fleetform does not declare in a fragment: ${made.untouched.join(', ')}` };
  const secret = made.secrets[0];
  if (secret)
    return { ok: false, reason: `module ${secret.module} has a secret env entry ${secret.key}, which code does not write into a fragment` };
  const imports = importsCode(config);
  if (!imports.ok) return imports;
  for (const i of imports.imports) {
    const key = Object.keys(secretVariables(i)).at(0);
    if (key !== undefined)
      return {
        ok: false,
        reason: `its import of fragment ${i.fragmentId} sets variable ${key}, which looks secret: code does not write it into a fragment`,
      };
  }
  return { ok: true, code: made.code, imports: imports.imports };
}

/**
 * The variables of an import whose names look secret (as env names do) and whose values are
 * text but no environment placeholder (`${environment.NAME}` is kept as written): code reads
 * them from the environment.
 */
export function secretVariables(i: Pick<ImportCode, 'variables'>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(i.variables ?? {}))
    if (typeof value === 'string' && isSecretEnvEntry(key, value)) out[key] = value;
  return out;
}

/** The variable a value reads when it is a placeholder `fragment.variable(name)` writes exactly (`{"$variable": {"name": ...}}`, nothing else). */
export function placeholderName(value: JsonValue | undefined): string | undefined {
  const name = variableName(value);
  const inner = isObject(value) ? value.$variable : undefined;
  if (name === undefined || !isObject(inner) || Object.keys(inner).length !== 1) return undefined;
  return VARIABLE_NAME_PATTERN.test(name) ? name : undefined;
}
