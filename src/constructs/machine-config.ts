import type { IConstruct } from 'constructs';
import type { MachineConfig, ModularResource as ModularResourceConfig, ModuleConfig } from '../domain';
import { currentGeneration } from './generation';
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
  /** `<moduleName>.<ENV_KEY>` of every secret module environment entry, sorted. */
  readonly sensitiveEnv: readonly string[];
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
 * Assembled configs, valid while no fleetform construct has been created since (the
 * generation): validation and synthesis of one synth share one assembly and one JSON text
 * per machine. Callers must not mutate what they get.
 */
const assembled = new WeakMap<Machine, { readonly generation: number; readonly value: AssembledMachine; json?: string }>();

/** The config document a machine synthesizes, with the construct behind each entry (shared: do not mutate). */
export function assembleMachine(machine: Machine): AssembledMachine {
  const generation = currentGeneration();
  const cached = assembled.get(machine);
  if (cached && cached.generation === generation) return cached.value;
  const value = assemble(machine);
  assembled.set(machine, { generation, value });
  return value;
}

/** The machine's config document as compact JSON text (what it synthesizes). */
export function machineConfigJson(machine: Machine): string {
  const value = assembleMachine(machine);
  const entry = assembled.get(machine);
  if (!entry || entry.value !== value) return JSON.stringify(value.config);
  entry.json ??= JSON.stringify(value.config);
  return entry.json;
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
  const sensitive = new Set<string>();
  for (const module of modules) {
    sources.push({ path: `modules[${config.modules.length}]`, construct: module });
    config.modules.push(module.toConfig());
    for (const key of module.sensitiveEnvKeys) sensitive.add(`${module.name}.${key}`);
  }
  return { config, sources, sensitiveEnv: [...sensitive].sort() };
}
