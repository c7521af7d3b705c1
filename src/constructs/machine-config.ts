import type { IConstruct } from 'constructs';
import type { MachineConfig, ModularResource as ModularResourceConfig, ModuleConfig } from '../domain';
import { perGeneration } from './generation';
import { kindOf } from './kinds';
import type { Machine } from './machine';
import type { ModularResource } from './modular-resource';
import type { Module } from './module';

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
  const modules: Module[] = [];
  const resources: ModularResource[] = [];
  const visit = (c: IConstruct): void => {
    for (const child of c.node.children) {
      const kind = kindOf(child);
      if (kind === 'module') modules.push(child as Module);
      else if (kind === 'modular-resource') resources.push(child as ModularResource);
      if (kind !== 'machine') visit(child);
    }
  };
  visit(machine);
  return { modules, resources };
}

/**
 * The config document a machine synthesizes, with the construct behind each entry;
 * assembled once per construct generation, so validation and synthesis share it (do not
 * mutate it).
 */
export const assembleMachine: (machine: Machine) => AssembledMachine = perGeneration(assemble);

/** The machine's whole config document (secret env included) as compact JSON text, once per generation. */
export const machineConfigJson: (machine: Machine) => string = perGeneration((machine: Machine) => JSON.stringify(assembleMachine(machine).config));

/**
 * The `config` a machine synthesizes: its config document without the secret env entries
 * (which it synthesizes in `secret_env`), as compact JSON text, once per generation.
 */
export const synthesizedConfigJson: (machine: Machine) => string = perGeneration((machine: Machine) => {
  const { config } = assembleMachine(machine);
  const modules = config.modules.map((module) => {
    if (module.env === undefined) return module;
    const env = Object.fromEntries(Object.entries(module.env).filter(([key]) => !isSecretEntry(machine, module.name, key)));
    const { env: _all, ...rest } = module;
    return Object.keys(env).length > 0 ? { ...rest, env } : rest;
  });
  return JSON.stringify({ ...config, modules });
});

function isSecretEntry(machine: Machine, moduleName: string, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(assembleMachine(machine).secretEnv, `${moduleName}.${key}`);
}

function assemble(machine: Machine): AssembledMachine {
  const { modules, resources } = machineParts(machine);
  const config: AssembledMachine['config'] = { components: [], services: [], modules: [] };
  const sources: ConfigEntrySource[] = [];
  for (const resource of resources) {
    const list = config[resource.configList];
    sources.push({ path: `${resource.configList}[${list.length}]`, construct: resource });
    list.push(resource.toConfig());
  }
  const secret: Array<[string, string]> = [];
  for (const module of modules) {
    sources.push({ path: `modules[${config.modules.length}]`, construct: module });
    config.modules.push(module.toConfig());
    // From the props every copy of this library has (a module may come from another copy).
    const env = { ...module.env, ...module.sensitiveEnv };
    for (const key of module.sensitiveEnvKeys) secret.push([`${module.name}.${key}`, env[key] as string]);
  }
  secret.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { config, sources, secretEnv: Object.fromEntries(secret) };
}
