import type { ModuleConfig } from '../domain';
import { perGeneration } from './generation';
import type { Machine } from './machine';
import { machineParts, secretEnvOf } from './machine-config';
import { ModularResource } from './modular-resource';

/** What a machine synthesizes from its parts. */
export interface SynthesizedConfig {
  /** The config document without the secret env entries, as compact JSON text. */
  readonly configJson: string;
  /** The secret env entries, synthesized apart in `secret_env` (see secretEnvOf). */
  readonly secretEnv: Readonly<Record<string, string>>;
}

/**
 * The `config` and `secret_env` a machine synthesizes, once per generation: the JSON text
 * of its config document (as assembleMachine assembles it) with the secret env entries
 * left out, written entry by entry.
 */
export const synthesizedConfig: (machine: Machine) => SynthesizedConfig = perGeneration((machine: Machine) => {
  const { modules, resources } = machineParts(machine);
  const secretEnv = secretEnvOf(modules);
  const components: string[] = [];
  const services: string[] = [];
  for (const resource of resources) (resource.configList === 'services' ? services : components).push(resourceJson(resource));
  const moduleTexts = modules.map((module) => JSON.stringify(withoutSecretEnv(module.toConfig(), secretEnv)));
  return { configJson: `{"components":[${components.join(',')}],"services":[${services.join(',')}],"modules":[${moduleTexts.join(',')}]}`, secretEnv };
});

/**
 * JSON.stringify(resource.toConfig()), written from the resource's fields when it is this
 * library's toConfig (the entry object and its copy of the attributes are not needed).
 */
function resourceJson(resource: ModularResource): string {
  if (resource.toConfig !== ModularResource.prototype.toConfig) return JSON.stringify(resource.toConfig());
  // The keys and values of toConfig's entry, in its order.
  return (
    `{"name":${JSON.stringify(resource.name)},"api":${JSON.stringify(resource.api)},"model":${JSON.stringify(resource.model)}` +
    `,"attributes":${JSON.stringify(resource.attributes)},"depends_on":${JSON.stringify(resource.dependsOnNames)}}`
  );
}

/** A module's entry without its secret env entries (and without env when none is left). */
function withoutSecretEnv(module: ModuleConfig, secretEnv: Readonly<Record<string, string>>): ModuleConfig {
  if (module.env === undefined) return module;
  const isSecret = (key: string): boolean => Object.prototype.hasOwnProperty.call(secretEnv, `${module.name}.${key}`);
  const env = Object.fromEntries(Object.entries(module.env).filter(([key]) => !isSecret(key)));
  const { env: _all, ...rest } = module;
  return Object.keys(env).length > 0 ? { ...rest, env } : rest;
}
