import type { IConstruct } from 'constructs';
import type { MachineConfig, ModularResource as ModularResourceConfig, ModuleConfig } from '../domain';
import { isFinished } from './construction';
import { kindOf } from './kinds';
import type { IMachine as Machine, IModularResource as ModularResource, IModule as Module } from './machine-parts';

/** Where an entry of a machine config came from: `components[1]` was declared by that construct. */
export interface ConfigEntrySource {
  /** JSON path of the entry, e.g. `components[1]`. */
  readonly path: string;
  readonly construct: Module | ModularResource;
}

/** A machine's config document with the construct behind each entry. */
export interface AssembledMachine {
  /** `components`, `services` and `modules`, always all three, in declaration order. */
  readonly config: MachineConfig & {
    components: ModularResourceConfig[];
    services: ModularResourceConfig[];
    modules: ModuleConfig[];
  };
  readonly sources: readonly ConfigEntrySource[];
  /** Every secret module environment entry by `<moduleName>.<ENV_KEY>`, in sorted order. */
  readonly secretEnv: Readonly<Record<string, string>>;
}

/** The modules and modular resources of a machine, in declaration order (depth first). */
export function machineParts(machine: Machine): { modules: Module[]; resources: ModularResource[] } {
  const parts = { modules: [] as Module[], resources: [] as ModularResource[] };
  collectParts(machine, parts);
  return parts;
}

function collectParts(scope: IConstruct, into: { modules: Module[]; resources: ModularResource[] }): void {
  for (const child of scope.node.children) {
    const kind = kindOf(child);
    if (!isFinished(child)) continue;
    if (kind === 'module') into.modules.push(child as Module);
    else if (kind === 'modular-resource') into.resources.push(child as ModularResource);
    if (kind !== 'machine' && kind !== 'fleetform_fragment') collectParts(child, into);
  }
}

/** A part that gives its entry of the machine config. */
interface ConfigPart<C> {
  toConfig(): C;
}

/** Entry makers by the toConfig method they stand for: see sharesConfigEntries. */
const entryMakers = new Map<unknown, (part: never) => unknown>();

/**
 * Declares how the entries of a class's parts are made without copies: what its own
 * toConfig returns, sharing the part's objects (the machine config only reads them). A
 * subclass overriding toConfig, or a part of another copy of this library, is asked for
 * toConfig as ever.
 */
export function sharesConfigEntries<P extends ConfigPart<C>, C>(toConfig: P['toConfig'], entry: (part: P) => C): void {
  entryMakers.set(toConfig, entry);
}

/** A part's entry of the machine config: toConfig's, without copies where its class says how (do not mutate). */
export function configEntryOf<C>(part: ConfigPart<C>): C {
  const make = entryMakers.get(part.toConfig) as ((part: ConfigPart<C>) => C) | undefined;
  return make ? make(part) : part.toConfig();
}

/** The machine's whole config document (secret env included) as compact JSON text. */
export function machineConfigJson(machine: Machine): string {
  return JSON.stringify(assembleMachine(machine).config);
}

/**
 * The config document a machine synthesizes, with the construct behind each entry,
 * assembled anew on each call (a large fleet keeps no copy of every config in memory).
 * Its entries may share objects with the constructs: do not mutate it.
 */
export function assembleMachine(machine: Machine): AssembledMachine {
  const { modules, resources } = machineParts(machine);
  const config: AssembledMachine['config'] = { components: [], services: [], modules: [] };
  const sources: ConfigEntrySource[] = [];
  for (const resource of resources) {
    const listName = resource.configList;
    const list = config[listName];
    sources.push({ path: `${listName}[${list.length}]`, construct: resource });
    list.push(configEntryOf(resource));
  }
  for (const module of modules) {
    sources.push({ path: `modules[${config.modules.length}]`, construct: module });
    config.modules.push(module.toConfig());
  }
  return { config, sources, secretEnv: secretEnvOf(modules) };
}

/** Every secret environment entry of the modules by `<moduleName>.<ENV_KEY>`, in sorted order. */
export function secretEnvOf(modules: readonly Module[]): Record<string, string> {
  const secret: Array<[string, string]> = [];
  for (const module of modules) {
    // From the props every copy of this library has (a module may come from another copy).
    const env = { ...module.env, ...module.sensitiveEnv };
    for (const key of module.sensitiveEnvKeys) secret.push([`${module.name}.${key}`, env[key] as string]);
  }
  secret.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(secret);
}
