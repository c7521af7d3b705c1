import type { ModuleConfig } from '../domain';
import { hasOwnKeys } from '../domain/own-keys';
import type { IMachine as Machine } from './machine-parts';
import { assembleMachine, type AssembledMachine } from './machine-config';
import { fragmentConfigKeys } from './fragment-imports';

/** What a machine synthesizes from its parts. */
export interface SynthesizedConfig {
  /** The config document without the secret env entries, as compact JSON text. */
  readonly configJson: string;
  /** The secret env entries, synthesized apart in `secret_env` (see secretEnvOf). */
  readonly secretEnv: Readonly<Record<string, string>>;
}

/**
 * The `config` and `secret_env` a machine synthesizes from its assembled config: the JSON
 * text of the config document with the secret env entries left out.
 */
export function synthesizedConfigOf({ config, secretEnv, synthesizedPackages, packageParts }: AssembledMachine, imports: ReturnType<typeof fragmentConfigKeys> = {}): SynthesizedConfig {
  // Packages given by an override, with no Package construct, are written as given.
  const withPackages = config.packages === undefined || packageParts.length === 0 ? config : withSynthesizedPackages(config, synthesizedPackages);
  const document = imports.fragments ? { ...withPackages, ...imports } : withPackages;
  if (!hasOwnKeys(secretEnv)) return { configJson: JSON.stringify(document), secretEnv };
  const withoutSecrets = { ...document, modules: (config.modules ?? []).map((module) => withoutSecretEnv(module, secretEnv)) };
  return { configJson: JSON.stringify(withoutSecrets), secretEnv };
}

/** The config with the packages it synthesizes in place of its `packages` (left out when none is). */
function withSynthesizedPackages(config: AssembledMachine['config'], synthesizedPackages: AssembledMachine['synthesizedPackages']): object {
  const { packages: _all, ...sections } = config;
  return synthesizedPackages.length > 0 ? { ...sections, packages: synthesizedPackages } : sections;
}

/** The `config` and `secret_env` a machine synthesizes (see synthesizedConfigOf). */
export function synthesizedConfig(machine: Machine): SynthesizedConfig {
  return synthesizedConfigOf(assembleMachine(machine), fragmentConfigKeys(machine));
}

/** A module's entry without its secret env entries (and without env when none is left). */
function withoutSecretEnv(module: ModuleConfig, secretEnv: Readonly<Record<string, string>>): ModuleConfig {
  if (module.env === undefined) return module;
  const isSecret = (key: string): boolean => Object.prototype.hasOwnProperty.call(secretEnv, `${module.name}.${key}`);
  const env = Object.fromEntries(Object.entries(module.env).filter(([key]) => !isSecret(key)));
  const { env: _all, ...rest } = module;
  return Object.keys(env).length > 0 ? { ...rest, env } : rest;
}
