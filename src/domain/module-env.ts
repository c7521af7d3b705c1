import type { ModuleConfig } from './config';
import {
  MODULE_STARTUP_TIMEOUT_ENV,
  RESOURCE_CONFIGURATION_TIMEOUT_ENV,
  formatGoDuration,
  moduleStartupTimeout,
  resourceConfigurationTimeout,
} from './duration';
import { isEnvironmentPlaceholder, substitutePlaceholders } from './placeholders';

/** Who a cloud-connected machine is: what its modules learn about it through the environment. */
export interface MachineIdentity {
  machineId: string;
  partId: string;
  locationId: string;
  organizationId: string;
  apiKey: string;
  apiKeyId: string;
  /** The machine server's configuration root (`VIAM_HOME`). */
  home: string;
  fqdn?: string;
}

/** The service's variable prefix (the seed's `SVC_`). */
export const ENV_PREFIX = 'VIAM_';

/** The 12 variables of the seed's table, as every module may receive them. */
export const MODULE_ENV_VARIABLES: readonly string[] = [
  'VIAM_HOME',
  'VIAM_MODULE_ROOT',
  RESOURCE_CONFIGURATION_TIMEOUT_ENV,
  MODULE_STARTUP_TIMEOUT_ENV,
  'VIAM_MODULE_DATA',
  'VIAM_MODULE_ID',
  'VIAM_API_KEY',
  'VIAM_API_KEY_ID',
  'VIAM_MACHINE_PART_ID',
  'VIAM_MACHINE_ID',
  'VIAM_LOCATION_ID',
  'VIAM_PRIMARY_ORG_ID',
];

/**
 * Variables a LOCAL module does not get automatically (set them in its `env` if it
 * needs them): `VIAM_MODULE_ID`, because a local module is not installed from the
 * registry and its optional `module_id` is only used to match models. Every module,
 * local or registry, gets the cloud variables (`VIAM_PRIMARY_ORG_ID`,
 * `VIAM_LOCATION_ID`, `VIAM_MACHINE_ID`, `VIAM_MACHINE_PART_ID`, `VIAM_MACHINE_FQDN`,
 * `VIAM_API_KEY`, `VIAM_API_KEY_ID`) only when the machine is cloud-connected, i.e.
 * when an identity is given.
 */
export const NOT_AUTOMATIC_FOR_LOCAL_MODULES: readonly string[] = ['VIAM_MODULE_ID'];

/** Variables only a cloud-connected machine (one with an identity) provides. */
export const CLOUD_ONLY_VARIABLES: readonly string[] = [
  'VIAM_PRIMARY_ORG_ID',
  'VIAM_LOCATION_ID',
  'VIAM_MACHINE_ID',
  'VIAM_MACHINE_PART_ID',
  'VIAM_MACHINE_FQDN',
  'VIAM_API_KEY',
  'VIAM_API_KEY_ID',
];

const SECRET_MARKERS: readonly string[] = [
  'API_KEY',
  'APIKEY',
  'SECRET',
  'TOKEN',
  'PASSWORD',
  'PASSWD',
  'CREDENTIAL',
  'PRIVATE_KEY',
  'ACCESS_KEY',
  'AUTH_KEY',
  'SESSION_KEY',
];

/** Whether an environment variable name suggests a secret (`VIAM_API_KEY`, `DB_PASSWORD`, `GITHUB_TOKEN`...). */
export function isSecretEnvName(name: string): boolean {
  const upper = name.toUpperCase().replace(/-/g, '_');
  return SECRET_MARKERS.some((marker) => upper.includes(marker));
}

/** Whether a module's env entry is a secret: its name looks secret and its value is not wholly an environment placeholder. */
export function isSecretEnvEntry(name: string, value: unknown): boolean {
  return isSecretEnvName(name) && !isEnvironmentPlaceholder(value);
}

/**
 * Why no process can receive an environment entry, or undefined when one can. A process's
 * environment is a list of `NAME=VALUE` C strings: a name cannot be empty or hold `=` (the
 * first `=` ends it) and neither part can hold NUL (it ends the string).
 */
export function unreceivableEnvEntry(name: string, value: string): string | undefined {
  if (name === '') return 'an environment variable needs a name';
  if (name.includes('='))
    return `environment variable name ${JSON.stringify(name)} holds "=", which ends a name: no process can receive it`;
  if (name.includes('\0')) return `environment variable name ${JSON.stringify(name)} holds a NUL character: no process can receive it`;
  if (value.includes('\0'))
    return `the value of ${JSON.stringify(name)} holds a NUL character, which ends it: no process can receive it whole`;
  return undefined;
}

function dirname(path: string): string {
  const cut = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  if (cut < 0) return '.';
  if (cut === 0) return path.slice(0, 1);
  return path.slice(0, cut);
}

/** Where the machine server keeps its configuration: the identity's home, else `VIAM_HOME`, else `$HOME/.viam`. */
export function machineHome(serverEnv: Readonly<Record<string, string | undefined>>, identity?: MachineIdentity): string | undefined {
  if (identity) return identity.home;
  if (serverEnv.VIAM_HOME) return serverEnv.VIAM_HOME;
  return serverEnv.HOME ? `${serverEnv.HOME}/.viam` : undefined;
}

/**
 * Folder a registry module version is installed in:
 * `<home>/packages/data/module/<module id with ":" and "/" as "-">-<version>`.
 * Pass the module with its resolved version.
 */
export function registryModuleRoot(home: string, moduleId: string, version: string): string {
  return `${home}/packages/data/module/${moduleId.replace(/[:/]/g, '-')}-${version}`;
}

/** The module process environment and the variables its `env` referenced that the server does not have. */
export interface ModuleEnvironment {
  env: Record<string, string>;
  missing: string[];
}

/**
 * The exact environment a module process receives, built as the machine server does:
 * 1. the server's own environment (unset entries dropped);
 * 2. `VIAM_HOME`; `VIAM_MODULE_DATA` = `<home>/module-data/<machine id or "local">/<module name>`;
 *    `VIAM_MODULE_NAME`;
 *    `VIAM_MODULE_ROOT` = the executable's folder (local) or the install folder (registry);
 *    `VIAM_MODULE_ID` for registry modules only (see NOT_AUTOMATIC_FOR_LOCAL_MODULES);
 *    `VIAM_RESOURCE_CONFIGURATION_TIMEOUT` and `VIAM_MODULE_STARTUP_TIMEOUT` as effective
 *    Go durations (the server's value when usable, else the default);
 * 3. with an identity (cloud-connected): the organization, location, machine, part ids,
 *    `VIAM_MACHINE_FQDN` when known, `VIAM_API_KEY` and `VIAM_API_KEY_ID`;
 * 4. the module's own `env`, with `${environment.NAME}` substituted from the server's
 *    environment, overriding everything above (including the variables of steps 2-3).
 * `missing` lists the variables referenced by `env` or `executable_path` that the
 * server's environment lacks; those placeholders stay as written.
 */
export function moduleEnvironment(
  module: ModuleConfig,
  serverEnv: Readonly<Record<string, string | undefined>>,
  identity?: MachineIdentity,
): ModuleEnvironment {
  const env: Record<string, string> = {};
  const missing: string[] = [];
  const noteMissing = (names: readonly string[]): void => {
    for (const n of names) if (!missing.includes(n)) missing.push(n);
  };
  for (const [k, v] of Object.entries(serverEnv)) if (v !== undefined) env[k] = v;

  const home = machineHome(serverEnv, identity);
  if (home !== undefined) {
    env.VIAM_HOME = home;
    env.VIAM_MODULE_DATA = `${home}/module-data/${identity?.machineId ?? 'local'}/${module.name}`;
  }
  env.VIAM_MODULE_NAME = module.name;
  if (module.type === 'local') {
    if (module.executable_path !== undefined) {
      const path = substitutePlaceholders(module.executable_path, serverEnv);
      noteMissing(path.missing);
      env.VIAM_MODULE_ROOT = dirname(path.value);
    }
  } else {
    if (module.module_id !== undefined) {
      env.VIAM_MODULE_ID = module.module_id;
      if (home !== undefined && module.version !== undefined) {
        env.VIAM_MODULE_ROOT = registryModuleRoot(home, module.module_id, module.version);
      }
    }
  }
  env[RESOURCE_CONFIGURATION_TIMEOUT_ENV] = formatGoDuration(resourceConfigurationTimeout(serverEnv).ms);
  env[MODULE_STARTUP_TIMEOUT_ENV] = formatGoDuration(moduleStartupTimeout(serverEnv).ms);
  if (identity) {
    env.VIAM_PRIMARY_ORG_ID = identity.organizationId;
    env.VIAM_LOCATION_ID = identity.locationId;
    env.VIAM_MACHINE_ID = identity.machineId;
    env.VIAM_MACHINE_PART_ID = identity.partId;
    if (identity.fqdn !== undefined) env.VIAM_MACHINE_FQDN = identity.fqdn;
    env.VIAM_API_KEY = identity.apiKey;
    env.VIAM_API_KEY_ID = identity.apiKeyId;
  }
  for (const [k, v] of Object.entries(module.env ?? {})) {
    const s = substitutePlaceholders(v, serverEnv);
    noteMissing(s.missing);
    env[k] = s.value;
  }
  return { env, missing };
}
