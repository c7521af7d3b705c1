import { MANAGED_CONFIG_SECTIONS, NAMED_LIST_SECTIONS } from '../../domain/config';
import { isCodeOwnedKey } from '../../domain/config-language';
import { inKeyOrderOf } from '../../domain/key-order';
import { isObject, toJson, type JsonObject, type JsonValue } from '../json';

/** The lists of a machine config a plan keys by entry name; every other section code writes is compared as written. */
export const MANAGED_LISTS = MANAGED_CONFIG_SECTIONS;

/** The fragment imports and their overrides: managed too, compared as written (a bare id stays a bare id, an empty list stays empty). */
export const MANAGED_IMPORTS = ['fragments', 'fragment_mods'] as const;

/** A named list's change shows by entry name, as `config.triggers.offline-alert.notifications[0]`. */
const isNamedList = (key: string): boolean => (NAMED_LIST_SECTIONS as readonly string[]).includes(key);

/** A named list keyed by its entries' names; undefined when an entry is no object or has no name of its own. */
function keyedByName(entries: unknown): JsonObject | undefined {
  if (!Array.isArray(entries)) return undefined;
  const keyed: JsonObject = {};
  for (const raw of entries) {
    if (!isObject(raw) || typeof raw.name !== 'string' || raw.name === '' || Object.hasOwn(keyed, raw.name)) return undefined;
    keyed[raw.name] = raw;
  }
  return keyed;
}

const isListOrImport = (key: string): boolean =>
  (MANAGED_LISTS as readonly string[]).includes(key) || (MANAGED_IMPORTS as readonly string[]).includes(key);

/** Every key code writes is managed: the lists and imports above, and every other section but the service's own (`revision`, `cloud`). */
const isManaged = (key: string): boolean => isListOrImport(key) || isCodeOwnedKey(key);

function keyOf(entry: JsonObject, taken: Set<string>): string {
  const name = typeof entry.name === 'string' ? entry.name : '';
  let key = name;
  if (taken.has(key) && typeof entry.api === 'string') key = `${name}@${entry.api}`;
  let n = 2;
  while (taken.has(key)) key = `${name}#${n++}`;
  taken.add(key);
  return key;
}

/**
 * A machine config as a plan compares it: each managed list keyed by entry name, so a
 * change shows as `config.components.sensor-1.attributes.timeout_ms`, not as a list shift.
 * Every section is present or absent as written, an empty list as `{}`: two configs have
 * the same view exactly when they are the same JSON, key order and the order of a keyed
 * list's entries aside, so a plan with no changes is one whose write would send what the
 * service has (a write keeps the stored order of a keyed list's entries; new ones follow it).
 * `config` is JSON (parsed text or a protobuf Struct's JSON); its entries are shared, not
 * copied, so the view must not be mutated.
 */
export function configView(config: Record<string, unknown>): JsonObject {
  const view: JsonObject = {};
  for (const list of MANAGED_LISTS) {
    const entries = config[list];
    if (!Array.isArray(entries)) continue;
    const keyed: JsonObject = {};
    const taken = new Set<string>();
    for (const raw of entries) if (isObject(raw)) keyed[keyOf(raw, taken)] = raw;
    view[list] = keyed;
  }
  for (const key of MANAGED_IMPORTS) {
    const imports = config[key];
    if (Array.isArray(imports)) view[key] = imports as JsonValue[];
  }
  // Every other section code writes (network, remotes, agent, `_comment`, ...), compared as written.
  for (const key of Object.keys(config)) {
    if (isListOrImport(key) || !isCodeOwnedKey(key) || config[key] === undefined) continue;
    view[key] = (isNamedList(key) ? keyedByName(config[key]) : undefined) ?? toJson(config[key]);
  }
  return view;
}

/**
 * Back from the keyed view to the service's list form, each section present exactly when the
 * view has it, keeping unmanaged top-level keys of `base` (the stored config a write replaces)
 * and, with `keepOrder` (its order is a writer's, not the service's reshuffle of a Struct),
 * its order of keys and keyed entries wherever both hold one.
 */
export function configDocument(view: JsonObject, base: Record<string, unknown> = {}, keepOrder = true): Record<string, JsonValue> {
  const doc: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(base)) {
    if (!isManaged(k)) doc[k] = toJson(v);
  }
  for (const list of MANAGED_LISTS) {
    const keyed = view[list];
    if (isObject(keyed)) doc[list] = keepOrder ? inStoredEntryOrder(keyed, base[list]) : Object.values(keyed);
  }
  for (const key of MANAGED_IMPORTS) if (Array.isArray(view[key])) doc[key] = view[key];
  for (const [key, value] of Object.entries(view)) {
    if (isListOrImport(key) || !isCodeOwnedKey(key)) continue;
    doc[key] = isNamedList(key) && isObject(value) ? (keepOrder ? inStoredEntryOrder(value, base[key]) : Object.values(value)) : value;
  }
  return keepOrder ? inKeyOrderOf(doc, base) : doc;
}

/**
 * A keyed list's entries in the order the stored list has them (the plan does not compare
 * that order, so the write keeps it), then the entries only the view has, in its order.
 */
function inStoredEntryOrder(keyed: JsonObject, stored: unknown): JsonValue[] {
  if (!Array.isArray(stored)) return Object.values(keyed);
  const taken = new Set<string>();
  const out: JsonValue[] = [];
  for (const raw of stored) {
    if (!isObject(raw)) continue;
    const key = keyOf(raw as JsonObject, taken);
    if (Object.prototype.hasOwnProperty.call(keyed, key)) out.push(keyed[key] as JsonValue);
  }
  for (const [key, entry] of Object.entries(keyed)) if (!taken.has(key)) out.push(entry);
  return out;
}

/** The texts a part's config was read from, for its integers above 2^53 to be written back as read. */
export function readFromOf(part: { readonly configJson?: string }): string[] {
  return part.configJson === undefined ? [] : [part.configJson];
}
