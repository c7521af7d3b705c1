import { isServiceApi } from '../../domain/triplet';
import { isSecretEnvName } from '../../domain/module-env';
import { conventionalModuleName } from '../../domain/names';
import { validateMachineConfig } from '../../domain';
import { FRAGMENT_RESOLVED_ISSUES } from '../../domain/fragments';
import { MANAGED_CONFIG_SECTIONS } from '../../domain/config';
import { isPackageType, LATEST_PACKAGE_VERSION, type PackageType } from '../../domain/packages';
import { isObject, type JsonObject, type JsonValue } from '../json';

/** The model of a resource in code: `module.model('name')` when a module of the machine gives it, else the triplet. */
export type ModelCode = { readonly module: number; readonly model: string } | { readonly triplet: string };

/** One `Module` of a machine, as code will declare it. */
export interface ModuleCode {
  /** The module's name on the machine. */
  readonly name: string;
  /** Whether code must say the name (it differs from what the construct would choose). */
  readonly nameGiven: boolean;
  readonly moduleId?: string;
  readonly version?: string;
  readonly executablePath?: string;
  readonly env: Readonly<Record<string, string>>;
  /** Secret env entries: read from these variables of the environment at synth. */
  readonly sensitiveEnv: Readonly<Record<string, string>>;
}

/** One `ModularResource` of a machine, as code will declare it. */
export interface ResourceCode {
  readonly name: string;
  readonly api: string;
  readonly model: ModelCode;
  readonly attributes?: JsonObject;
  /** Each dependency: the index of a resource of the same machine, or a name code keeps as text. */
  readonly dependsOn: readonly (number | string)[];
}

/** One `Package` of a machine, as code will declare it. */
export interface PackageCode {
  readonly name: string;
  readonly package: string;
  /** Left out when it is the newest version (`latest`). */
  readonly version?: string;
  readonly type: PackageType;
}

/** The config of a machine's main part, as code will declare it. */
export interface MachineConfigCode {
  readonly modules: readonly ModuleCode[];
  readonly resources: readonly ResourceCode[];
  readonly packages: readonly PackageCode[];
}

/** Whether a config declares nothing: no module, resource or package. */
export function isEmptyConfig(config: MachineConfigCode): boolean {
  return config.modules.length === 0 && config.resources.length === 0 && config.packages.length === 0;
}

/** A secret env entry that code reads from the environment instead of holding it. */
export interface SecretVariable {
  readonly variable: string;
  readonly module: string;
  readonly key: string;
  /** The value the variable must hold for the next plan to find nothing to change. */
  readonly value: string;
}

export type MachineCodeResult =
  | { readonly ok: true; readonly code: MachineConfigCode; readonly secrets: readonly SecretVariable[]; readonly untouched: readonly string[] }
  | { readonly ok: false; readonly reason: string };

const MODULE_KEYS = new Set(['type', 'name', 'module_id', 'version', 'executable_path', 'env']);
const RESOURCE_KEYS = new Set(['name', 'api', 'model', 'attributes', 'depends_on']);
const PACKAGE_KEYS = new Set(['name', 'package', 'version', 'type']);
const MANAGED_SECTIONS: ReadonlySet<string> = new Set(MANAGED_CONFIG_SECTIONS);

function text(v: JsonValue | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function stringMap(v: JsonValue | undefined): Record<string, string> | undefined {
  if (v === undefined) return {};
  if (!isObject(v)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, value] of Object.entries(v)) {
    if (typeof value !== 'string') return undefined;
    out[k] = value;
  }
  return out;
}

/** An environment variable name for a secret: upper case, `_` between words. */
export function secretVariableName(...parts: readonly string[]): string {
  return parts
    .join('_')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .replace(/^(\d)/, '_$1');
}

function moduleCode(entry: JsonObject, secretPrefix: string, secrets: SecretVariable[]): ModuleCode | string {
  const stray = Object.keys(entry).filter((k) => !MODULE_KEYS.has(k));
  if (stray.length > 0) return `module entry keys fleetform does not declare: ${stray.join(', ')}`;
  const name = text(entry.name);
  if (!name) return 'a module entry without a name';
  const moduleId = text(entry.module_id);
  const executablePath = text(entry.executable_path);
  const type = text(entry.type) ?? (executablePath === undefined ? 'registry' : 'local');
  if ((type === 'local') !== (executablePath !== undefined)) return `module ${name}: type "${type}" and executable_path disagree`;
  const allEnv = stringMap(entry.env);
  if (allEnv === undefined) return `module ${name}: env values that are not text`;
  const env: Record<string, string> = {};
  const sensitiveEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(allEnv)) {
    if (!isSecretEnvName(key)) {
      env[key] = value;
      continue;
    }
    const variable = secretVariableName(secretPrefix, name, key);
    sensitiveEnv[key] = variable;
    secrets.push({ variable, module: name, key, value });
  }
  const conventional = moduleId === undefined ? undefined : conventionalModuleName(moduleId);
  return {
    name,
    nameGiven: name !== conventional,
    ...(moduleId === undefined ? {} : { moduleId }),
    ...(text(entry.version) === undefined ? {} : { version: text(entry.version) }),
    ...(executablePath === undefined ? {} : { executablePath }),
    env,
    sensitiveEnv,
  };
}

function modelCode(model: string, modules: readonly ModuleCode[]): ModelCode {
  const cut = model.lastIndexOf(':');
  const prefix = model.slice(0, cut);
  const index = modules.findIndex((m) => m.moduleId !== undefined && m.moduleId === prefix);
  return index >= 0 && cut > 0 ? { module: index, model: model.slice(cut + 1) } : { triplet: model };
}

/**
 * The code that declares a main part's config, or why code cannot declare it exactly
 * (an entry key or a section fleetform does not model): such a machine is not adopted,
 * since its next plan would rewrite it. `secretPrefix` starts the names of the variables
 * secret env entries are read from. Fragment imports are read apart (importsCode).
 */
export function machineConfigCode(config: Record<string, unknown>, secretPrefix: string): MachineCodeResult {
  const untouched = Object.keys(config).filter((k) => !MANAGED_SECTIONS.has(k) && k !== 'fragments' && k !== 'fragment_mods');
  const imports = Array.isArray(config.fragments) && config.fragments.length > 0;
  const invalid = validateMachineConfig(config).errors.find((e) => !(imports && FRAGMENT_RESOLVED_ISSUES.has(e.code)));
  if (invalid) return { ok: false, reason: `its config does not pass fleetform's checks at ${invalid.path}: ${invalid.message}` };
  const secrets: SecretVariable[] = [];
  const modules: ModuleCode[] = [];
  for (const raw of Array.isArray(config.modules) ? config.modules : []) {
    if (!isObject(raw)) return { ok: false, reason: 'a module entry that is not an object' };
    const made = moduleCode(raw, secretPrefix, secrets);
    if (typeof made === 'string') return { ok: false, reason: made };
    modules.push(made);
  }
  const entries: { entry: JsonObject; section: 'components' | 'services' }[] = [];
  for (const section of ['components', 'services'] as const) {
    for (const raw of Array.isArray(config[section]) ? (config[section] as unknown[]) : []) {
      if (!isObject(raw)) return { ok: false, reason: `a ${section} entry that is not an object` };
      entries.push({ entry: raw, section });
    }
  }
  // Code lists components before services, each in the service's order, as a machine synthesizes them.
  const names = entries.map(({ entry }) => text(entry.name) ?? '');
  const resources: ResourceCode[] = [];
  for (const { entry, section } of entries) {
    const stray = Object.keys(entry).filter((k) => !RESOURCE_KEYS.has(k));
    const name = text(entry.name) ?? '';
    if (stray.length > 0) return { ok: false, reason: `${section} entry ${name} has keys fleetform does not declare: ${stray.join(', ')}` };
    const api = text(entry.api) ?? '';
    if ((section === 'services') !== isServiceApi(api)) return { ok: false, reason: `${section} entry ${name} has api ${api}, which belongs in the other list` };
    const attributes = entry.attributes;
    if (attributes !== undefined && !isObject(attributes)) return { ok: false, reason: `${section} entry ${name} has attributes that are not an object` };
    const deps = entry.depends_on;
    if (deps !== undefined && (!Array.isArray(deps) || deps.some((d) => typeof d !== 'string'))) return { ok: false, reason: `${section} entry ${name} has a depends_on that is not a list of names` };
    const dependsOn = ((deps ?? []) as string[]).map((d) => {
      const at = names.indexOf(d);
      return at >= 0 && names.indexOf(d, at + 1) < 0 ? at : d;
    });
    resources.push({
      name,
      api,
      model: modelCode(text(entry.model) ?? '', modules),
      ...(attributes === undefined ? {} : { attributes }),
      dependsOn,
    });
  }
  const packages: PackageCode[] = [];
  for (const raw of Array.isArray(config.packages) ? config.packages : []) {
    if (!isObject(raw)) return { ok: false, reason: 'a packages entry that is not an object' };
    const stray = Object.keys(raw).filter((k) => !PACKAGE_KEYS.has(k));
    const name = text(raw.name) ?? '';
    if (stray.length > 0) return { ok: false, reason: `package ${name} has keys fleetform does not declare: ${stray.join(', ')}` };
    const type = text(raw.type) ?? '';
    if (!isPackageType(type)) return { ok: false, reason: `package ${name} has type ${JSON.stringify(type)}, which fleetform does not declare` };
    const version = text(raw.version);
    // A package written without a version is written back with `latest`: keep what the service holds.
    if (version === undefined) return { ok: false, reason: `package ${name} has no version; fleetform writes one (latest)` };
    packages.push({ name, package: text(raw.package) ?? '', ...(version === LATEST_PACKAGE_VERSION ? {} : { version }), type });
  }
  return { ok: true, code: { modules, resources, packages }, secrets, untouched };
}
