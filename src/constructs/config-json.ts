import type { ModuleConfig } from '../domain';
import { hasOwnKeys } from '../domain/own-keys';
import { pathKeys, withoutValueAt, type SecretReference } from '../domain/secret-reference';
import type { IMachine as Machine } from './machine-parts';
import { assembleMachine, type AssembledMachine } from './machine-config';
import { fragmentConfigKeys } from './fragment-imports';
import { configSecrets } from './secret';

/** What a machine synthesizes from its parts. */
export interface SynthesizedConfig {
  /** The config document without the secret env entries, as compact JSON text. */
  readonly configJson: string;
  /** The secret env entries, synthesized apart in `secret_env` (see secretEnvOf). */
  readonly secretEnv: Readonly<Record<string, string>>;
  /** Secrets by reference by the path of their value, synthesized in `secrets`; `configJson` holds nothing at those paths. */
  readonly secrets: Readonly<Record<string, SecretReference>>;
}

/**
 * The `config` and `secret_env` a machine synthesizes from its assembled config: the JSON
 * text of the config document with the secret env entries left out.
 */
export function synthesizedConfigOf(
  { config, secretEnv, synthesizedPackages, packageParts, secretReferences }: AssembledMachine,
  imports: ReturnType<typeof fragmentConfigKeys> = {},
): SynthesizedConfig {
  // Packages given by an override, with no Package construct, are written as given.
  const withPackages =
    config.packages === undefined || packageParts.length === 0 ? config : withSynthesizedPackages(config, synthesizedPackages);
  const referenced = hasOwnKeys(secretReferences) ? withoutReferencedPaths(withPackages, secretReferences) : withPackages;
  // A secret variable of an import is a reference by its path, as any other secret.
  const importSecrets = imports.fragments ? configSecrets(imports) : undefined;
  const secrets =
    importSecrets && hasOwnKeys(importSecrets.references) ? { ...secretReferences, ...importSecrets.references } : secretReferences;
  const document = importSecrets
    ? withoutReferencedPaths({ ...referenced, ...importSecrets.config }, importSecrets.references)
    : referenced;
  if (!hasOwnKeys(secretEnv)) return { configJson: JSON.stringify(document), secretEnv, secrets };
  const modules = (document as { modules?: ModuleConfig[] }).modules ?? [];
  const withoutSecrets = { ...document, modules: modules.map((module) => withoutSecretEnv(module, secretEnv)) };
  return { configJson: JSON.stringify(withoutSecrets), secretEnv, secrets };
}

/** The document with nothing at the paths references fill. */
function withoutReferencedPaths<T>(document: T, references: Readonly<Record<string, SecretReference>>): T {
  let out = document;
  for (const path of Object.keys(references)) {
    const keys = pathKeys(path);
    if (keys) out = withoutValueAt(out, keys);
  }
  return out;
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
