import { childPath } from '../../domain/json-path';
import { configSecrets } from '../../domain';
import { isSecretEnvEntry } from '../../domain/module-env';
import { isObject, type JsonObject, type JsonValue } from '../json';
import type { PlanProblem } from '../kind';
import type { SensitiveParts } from '../kind-declaration';
import { processRedactor } from '../redactor';

/**
 * A machine's secret module env entries travel apart from its `config`, in `secret_env`
 * keyed `<module>.<KEY>` (module names hold no dot), so that Terraform can show `config`
 * in the clear and hide `secret_env` as a whole. The engine's view puts them back into the
 * modules' env: plans, state and masking see one config, as the service holds it.
 */

/** `<module>.<KEY>` split at its first dot; undefined when there is none. */
function splitKey(key: string): { module: string; env: string } | undefined {
  const dot = key.indexOf('.');
  return dot > 0 && dot < key.length - 1 ? { module: key.slice(0, dot), env: key.slice(dot + 1) } : undefined;
}

/**
 * The config (parsed, list form) with the secret env entries merged into its modules' env,
 * and the problems of entries naming no module of the config.
 */
export function withSecretEnv(
  config: Record<string, unknown>,
  secretEnv: Readonly<Record<string, string>> | undefined,
): { config: Record<string, unknown>; problems: PlanProblem[] } {
  const entries = Object.entries(secretEnv ?? {});
  if (entries.length === 0) return { config, problems: [] };
  const problems: PlanProblem[] = [];
  const byModule = new Map<string, Record<string, string>>();
  for (const [key, value] of entries) {
    processRedactor.add(value);
    const split = splitKey(key);
    if (!split) {
      problems.push({
        path: childPath('secret_env', key),
        message: `secret_env key ${JSON.stringify(key)} is not <module>.<KEY>`,
        hint: 'synthesize the app again',
      });
      continue;
    }
    byModule.set(split.module, { ...byModule.get(split.module), [split.env]: value });
  }
  const modules = Array.isArray(config.modules) ? config.modules : [];
  const names = new Set(modules.map((m: unknown) => (isObject(m) && typeof m.name === 'string' ? m.name : undefined)));
  for (const moduleName of byModule.keys()) {
    if (!names.has(moduleName))
      problems.push({
        path: childPath('secret_env', moduleName),
        message: `secret_env holds entries of module ${moduleName}, which config does not have`,
        hint: 'synthesize the app again',
      });
  }
  const merged = modules.map((m: unknown) => {
    if (!isObject(m) || typeof m.name !== 'string') return m;
    const secret = byModule.get(m.name);
    if (!secret) return m;
    return { ...m, env: { ...(isObject(m.env) ? m.env : {}), ...secret } };
  });
  return { config: { ...config, modules: merged }, problems };
}

/**
 * A config view's modules split into the public part and the secret env entries: those
 * whose names look secret and those `flagged` (`<module>.<KEY>`, e.g. the keys of a prior
 * `secret_env`). The view is not changed.
 */
export function splitSecretEnv(
  config: JsonObject,
  flagged: ReadonlySet<string>,
): { config: JsonObject; secretEnv: Record<string, string> } {
  const secretEnv: Record<string, string> = {};
  if (!isObject(config.modules)) return { config, secretEnv };
  const modules: JsonObject = {};
  for (const [key, module] of Object.entries(config.modules)) {
    if (!isObject(module) || !isObject(module.env)) {
      modules[key] = module;
      continue;
    }
    const moduleName = typeof module.name === 'string' ? module.name : key;
    const env: { [k: string]: JsonValue } = {};
    for (const [name, value] of Object.entries(module.env)) {
      if (typeof value === 'string' && (isSecretEnvEntry(name, value) || flagged.has(`${moduleName}.${name}`)))
        secretEnv[`${moduleName}.${name}`] = value;
      else env[name] = value;
    }
    const { env: _whole, ...rest } = module;
    modules[key] = Object.keys(env).length > 0 ? { ...rest, env } : rest;
  }
  return { config: { ...config, modules }, secretEnv };
}

/** Env entries of the desired config's modules that hold secrets: names that look secret, and those code gives in `secret_env`. */
export const secretEnvEntries: SensitiveParts = {
  describe:
    'env entries of its modules whose names look secret (TOKEN, SECRET, PASSWORD, KEY, ...) or that code marks secret (given in `secret_env`), and the config paths the language declares secret (remote credentials, API keys, hotspot and network passwords), but no value that is wholly an environment placeholder (`${NAME}`, `${environment.NAME}`)',
  paths(view, attributes) {
    const flagged = new Set(isObject(attributes.secret_env) ? Object.keys(attributes.secret_env) : []);
    const modules = isObject(view.config) && isObject(view.config.modules) ? view.config.modules : {};
    const paths: string[] = [];
    for (const [moduleName, module] of Object.entries(modules)) {
      if (!isObject(module) || !isObject(module.env)) continue;
      for (const [key, value] of Object.entries(module.env)) {
        if (isSecretEnvEntry(key, value) || flagged.has(`${moduleName}.${key}`))
          paths.push(childPath(childPath(childPath('config.modules', moduleName), 'env'), key));
      }
    }
    // Sections other than the keyed lists are held in the view as written: the declared paths apply as they are.
    if (isObject(view.config)) for (const found of configSecrets(view.config)) paths.push(`config.${found.path}`);
    return paths;
  },
};
