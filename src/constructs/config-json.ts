import type { ModuleConfig } from '../domain';
import { perGeneration } from './generation';
import type { IMachine as Machine } from './machine-parts';
import { configEntryOf, machineParts, secretEnvOf } from './machine-config';
import { fragmentConfigKeys } from './fragment-imports';

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
 * left out.
 */
export const synthesizedConfig: (machine: Machine) => SynthesizedConfig = perGeneration((machine: Machine) => {
  const { modules, resources } = machineParts(machine);
  const secretEnv = secretEnvOf(modules);
  const config: { components: unknown[]; services: unknown[]; modules: unknown[] } = { components: [], services: [], modules: [] };
  for (const resource of resources) config[resource.configList].push(configEntryOf(resource));
  for (const module of modules) config.modules.push(withoutSecretEnv(module.toConfig(), secretEnv));
  const imports = fragmentConfigKeys(machine);
  return { configJson: JSON.stringify(imports.fragments ? { ...config, ...imports } : config), secretEnv };
});

/** A module's entry without its secret env entries (and without env when none is left). */
function withoutSecretEnv(module: ModuleConfig, secretEnv: Readonly<Record<string, string>>): ModuleConfig {
  if (module.env === undefined) return module;
  const isSecret = (key: string): boolean => Object.prototype.hasOwnProperty.call(secretEnv, `${module.name}.${key}`);
  const env = Object.fromEntries(Object.entries(module.env).filter(([key]) => !isSecret(key)));
  const { env: _all, ...rest } = module;
  return Object.keys(env).length > 0 ? { ...rest, env } : rest;
}
