import { z } from 'zod';
import { isServiceApi } from './triplet';
import { PackageConfigSchema } from './packages';
import { ModuleSettingsShape, PROP_SECTION_SHAPE, ProcessSchema, RemoteSchema, ResourceEntrySchema } from './config-language';
import { TriggerSchema } from './triggers';

/**
 * Machine configuration as the service stores it. Every object is loose: keys the
 * service adds that fleetform does not model are kept, so a fetched config written
 * back unchanged round-trips byte for byte (modulo key order of the JSON printer).
 */

/**
 * An entry of `components` or `services` as stored: a builtin resource or a module's, its
 * API and model in any of the forms resource-forms.ts reads.
 */
export const ModularResourceSchema = ResourceEntrySchema;
export type ModularResource = z.infer<typeof ModularResourceSchema>;

/** Where a module comes from. */
export const ModuleTypeSchema = z.enum(['registry', 'local']);
export type ModuleType = z.infer<typeof ModuleTypeSchema>;

/**
 * A module: an entry of `modules`. `module_id` and `version` are required for registry
 * modules and `executable_path` for local ones; those rules are checked by
 * `validateMachineConfig`, which reports them with paths and hints.
 */
export const ModuleConfigSchema = z.looseObject({
  /** Left out in the older form: a module with `executable_path` is local, else registry (moduleTypeOf). */
  type: z.string().optional(),
  name: z.string(),
  /** `<namespace or organization id>:<module-name>`. */
  module_id: z.string().optional(),
  /** Version or update policy, see version-policy.ts. */
  version: z.string().optional(),
  /** Extra environment of the module process; values may hold `${environment.NAME}`. */
  env: z.record(z.string(), z.string()).optional(),
  /** Local modules: the executable to run. */
  executable_path: z.string().optional(),
  ...ModuleSettingsShape,
});
export type ModuleConfig = z.infer<typeof ModuleConfigSchema>;

/** A module's type, also when written in the older form without one. */
export function moduleTypeOf(mod: { readonly type?: unknown; readonly executable_path?: unknown }): ModuleType {
  if (mod.type === 'registry' || mod.type === 'local') return mod.type;
  return typeof mod.executable_path === 'string' ? 'local' : 'registry';
}

/** A whole machine (part) configuration. */
export const MachineConfigSchema = z.looseObject({
  components: z.array(ModularResourceSchema).optional(),
  services: z.array(ModularResourceSchema).optional(),
  modules: z.array(ModuleConfigSchema).optional(),
  /** Registry packages the machine downloads (see packages.ts). */
  packages: z.array(PackageConfigSchema).optional(),
  remotes: z.array(RemoteSchema).optional(),
  processes: z.array(ProcessSchema).optional(),
  /** The sections Machine props declare (`jobs`, `network`, `debug`, ...), as the language declares them. */
  ...PROP_SECTION_SHAPE,
  triggers: z.array(TriggerSchema).optional(),
});
export type MachineConfig = z.infer<typeof MachineConfigSchema>;

/** The two lists of modular resources of a machine config. */
export const RESOURCE_LISTS = ['components', 'services'] as const;
export type ResourceListName = (typeof RESOURCE_LISTS)[number];

/** The sections of a machine config fleetform manages, in the order a config lists them. */
export const CONFIG_SECTIONS = [...RESOURCE_LISTS, 'modules'] as const;
export type ConfigSectionName = (typeof CONFIG_SECTIONS)[number];

/** Managed sections a config holds only when it has entries: a machine without packages stores no `packages`. */
export const OPTIONAL_CONFIG_SECTIONS = ['packages'] as const;

/** Every section fleetform manages: those always written, then the optional ones. */
export const MANAGED_CONFIG_SECTIONS = [...CONFIG_SECTIONS, ...OPTIONAL_CONFIG_SECTIONS] as const;

/**
 * Sections besides the managed lists whose entries are compared by name when every entry is
 * an object with a name of its own; otherwise (the service stores any JSON there) as written.
 */
export { NAMED_LIST_SECTIONS } from './config-language';

/**
 * The lists of a config that code may hold empty (`[]`) or leave out when nothing fills
 * them; a list with entries is always written. The service, viam-server and fleetform's
 * plans tell an absent list from an empty one apart, so code says which (`emptyLists`).
 */
export const EMPTY_LIST_SECTIONS = [...CONFIG_SECTIONS, 'packages', 'remotes', 'processes'] as const;
export type EmptyListSection = (typeof EMPTY_LIST_SECTIONS)[number];

/** The lists a machine, part or fragment holds empty when its code says nothing: the three it has always written. */
export const DEFAULT_EMPTY_LISTS: readonly EmptyListSection[] = CONFIG_SECTIONS;

/**
 * The config with its empty lists as `emptyLists` says: each named list present (`[]`
 * when nothing fills it), each other list without entries left out. The config is not
 * changed; a list with entries, or a value that is no list, stays as it is.
 */
export function withEmptyLists<T extends object>(config: T, emptyLists: readonly EmptyListSection[]): T {
  const out: Record<string, unknown> = { ...(config as Record<string, unknown>) };
  for (const list of EMPTY_LIST_SECTIONS) {
    const value = out[list];
    const kept = emptyLists.includes(list);
    if (value === undefined && kept) out[list] = [];
    else if (Array.isArray(value) && value.length === 0 && !kept) delete out[list];
  }
  return out as T;
}

/** The lists a config holds (with entries or empty), in the order of EMPTY_LIST_SECTIONS: what `emptyLists` says to give it back exactly. */
export function presentLists(config: Readonly<Record<string, unknown>>): EmptyListSection[] {
  return EMPTY_LIST_SECTIONS.filter((list) => Array.isArray(config[list]));
}

/** What one entry of each section is called. */
export const CONFIG_SECTION_ENTRY: Readonly<Record<ConfigSectionName, string>> = {
  components: 'component',
  services: 'service',
  modules: 'module',
};

/** The list a modular resource of this API triplet is listed under (a malformed API under `components`). */
export function resourceListOf(api: string): ResourceListName {
  return isServiceApi(api) ? 'services' : 'components';
}

/** Every section of a config, each present: the lists of modular resources and the modules. */
export type ConfigSections<R = ModularResource, M = ModuleConfig> = { [L in ResourceListName]: R[] } & { modules: M[] };

/** Every section, empty: what a machine's config is assembled into. */
export function emptyConfigSections<R = ModularResource, M = ModuleConfig>(): ConfigSections<R, M> {
  return { components: [], services: [], modules: [] };
}
