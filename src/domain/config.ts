import { z } from 'zod';
import { PackageConfigSchema } from './packages';

/**
 * Machine configuration as the service stores it. Every object is loose: keys the
 * service adds that fleetform does not model are kept, so a fetched config written
 * back unchanged round-trips byte for byte (modulo key order of the JSON printer).
 */

/** A modular resource: an entry of `components` or `services`. */
export const ModularResourceSchema = z.looseObject({
  /** Name of this instance; unique per API. */
  name: z.string(),
  /** Model triplet `<namespace>:<module-name>:<model-name>`. */
  model: z.string(),
  /** API triplet `<namespace>:<component|service>:<api-name>`. */
  api: z.string(),
  /** Model-specific attributes, defined by the module. */
  attributes: z.record(z.string(), z.unknown()).optional(),
  /** Short names of resources that must be available first. */
  depends_on: z.array(z.string()).optional(),
});
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
  type: ModuleTypeSchema,
  name: z.string(),
  /** `<namespace or organization id>:<module-name>`. */
  module_id: z.string().optional(),
  /** Version or update policy, see version-policy.ts. */
  version: z.string().optional(),
  /** Extra environment of the module process; values may hold `${environment.NAME}`. */
  env: z.record(z.string(), z.string()).optional(),
  /** Local modules: the executable to run. */
  executable_path: z.string().optional(),
});
export type ModuleConfig = z.infer<typeof ModuleConfigSchema>;

/** A whole machine (part) configuration. */
export const MachineConfigSchema = z.looseObject({
  components: z.array(ModularResourceSchema).optional(),
  services: z.array(ModularResourceSchema).optional(),
  modules: z.array(ModuleConfigSchema).optional(),
  /** Registry packages the machine downloads (see packages.ts). */
  packages: z.array(PackageConfigSchema).optional(),
});
export type MachineConfig = z.infer<typeof MachineConfigSchema>;

/** The two lists of modular resources of a machine config. */
export const RESOURCE_LISTS = ['components', 'services'] as const;
export type ResourceListName = (typeof RESOURCE_LISTS)[number];
