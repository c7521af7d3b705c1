import { isSecretEnvEntry } from '../../domain/module-env';
import { DEFAULT_EMPTY_LISTS, EMPTY_LIST_SECTIONS, presentLists, type EmptyListSection } from '../../domain/config';
import { conventionalModuleName } from '../../domain/names';
import { DEFAULT_SERVICE_NAME, validateMachineConfig } from '../../domain';
import { FRAGMENT_RESOLVED_ISSUES } from '../../domain/fragments';
import { isCodeOwnedKey, sectionAdoption, sectionProp, type EntrySection } from '../../domain/config-language';
import { configSecrets } from '../../domain/config-secrets';
import { isPackageType, LATEST_PACKAGE_VERSION, type PackageType } from '../../domain/packages';
import { isObject, type JsonObject, type JsonValue } from '../json';
import { RELOAD_KEYS } from '../../domain/module-reload';

/** The model of a resource in code: `module.model('name')` when a module of the machine gives it, else the text as written. */
export type ModelCode = { readonly module: number; readonly model: string } | { readonly triplet: string };

/** A value in code: JSON, or a secret read from a variable of the environment at synth. */
export type ValueCode = JsonValue | SecretRef | readonly ValueCode[] | { readonly [key: string]: ValueCode };

/** A secret value of the config: code reads it from this environment variable. */
export class SecretRef {
  constructor(readonly variable: string) {}
  toJSON(): string {
    return `secret:${this.variable}`;
  }
}

/** A key set (or, with `undefined`, removed) after the typed props: `addConfigOverride(path, value)`. */
export interface OverrideCode {
  readonly path: string;
  readonly value: ValueCode | undefined;
}

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
  /** Log level, disabling, timeouts, reload: props by name. */
  readonly settings: Readonly<Record<string, JsonValue>>;
  readonly overrides: readonly OverrideCode[];
}

/** One `Component` or `Service` of a machine, as code will declare it: what its entry says, in the form it says it. */
export interface ResourceCode {
  readonly list: 'components' | 'services';
  readonly name: string;
  /** The API as written: `api` (text), or `type` with an optional `namespace`. */
  readonly api?: string;
  readonly type?: string;
  readonly namespace?: string;
  /** Absent when the entry has none (a builtin service). */
  readonly model?: ModelCode;
  readonly attributes?: JsonObject;
  /** Each dependency: the index of a resource of the same machine, or a name code keeps as text; absent when the entry has no depends_on. */
  readonly dependsOn?: readonly (number | string)[];
  readonly frame?: JsonObject;
  readonly serviceConfigs?: readonly JsonValue[];
  readonly logConfiguration?: JsonObject;
  readonly disabled?: boolean;
  readonly overrides: readonly OverrideCode[];
}

/** One `Package` of a machine, as code will declare it. */
export interface PackageCode {
  readonly name: string;
  readonly package: string;
  /** Left out when it is the newest version (`latest`). */
  readonly version?: string;
  readonly type: PackageType;
}

/** An entry of another list (`remotes`, `processes`, `triggers`): its construct and its props. */
export interface EntryCode {
  readonly construct: 'Remote' | 'Process' | 'Trigger';
  readonly id: string;
  readonly props: { readonly [key: string]: ValueCode };
}

/** The config of a machine's main part, as code will declare it. */
export interface MachineConfigCode {
  readonly modules: readonly ModuleCode[];
  readonly resources: readonly ResourceCode[];
  readonly packages: readonly PackageCode[];
  readonly entries: readonly EntryCode[];
  /** Machine props for top-level sections (`network`, `debug`, ...), by prop name. */
  readonly settings: { readonly [prop: string]: ValueCode };
  /** What no construct or prop declares. */
  readonly overrides: readonly OverrideCode[];
  /** The lists the config holds (with entries or empty), when not the default ones (`emptyLists`). */
  readonly emptyLists?: readonly EmptyListSection[];
}

/** Whether a config declares nothing: no module, resource, package, entry, setting or override (its emptyLists is a prop). */
export function isEmptyConfig(config: MachineConfigCode): boolean {
  return (
    config.modules.length === 0 &&
    config.resources.length === 0 &&
    config.packages.length === 0 &&
    config.entries.length === 0 &&
    Object.keys(config.settings).length === 0 &&
    config.overrides.length === 0
  );
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
  | {
      readonly ok: true;
      readonly code: MachineConfigCode;
      readonly secrets: readonly SecretVariable[];
      readonly untouched: readonly string[];
    }
  | { readonly ok: false; readonly reason: string };

const MODULE_KEYS = new Set(['type', 'name', 'module_id', 'version', 'executable_path', 'env']);
/** Module settings: config key -> prop. */
const MODULE_SETTINGS: Readonly<Record<string, string>> = {
  log_level: 'logLevel',
  disabled: 'disabled',
  first_run_timeout: 'firstRunTimeout',
  tcp_mode: 'tcpMode',
  reload_path: 'reloadPath',
  reload_enabled: 'reloadEnabled',
};
/** Who reloaded a module, when and why: the service keeps them for the developer (plans keep them), so code does not declare them. */
const RELOAD_RECORD_KEYS: ReadonlySet<string> = new Set(RELOAD_KEYS.filter((k) => k !== 'reload_enabled' && k !== 'reload_path'));
const PACKAGE_KEYS = new Set(['name', 'package', 'version', 'type']);
/** Remote keys a prop declares: config key -> prop (auth is read apart). */
const REMOTE_PROPS: Readonly<Record<string, string>> = {
  name: 'name',
  address: 'address',
  prefix: 'prefix',
  frame: 'frame',
  secret: 'secret',
  insecure: 'insecure',
  connection_check_interval: 'connectionCheckInterval',
  reconnect_interval: 'reconnectInterval',
  service_configs: 'serviceConfigs',
};
const PROCESS_PROPS: Readonly<Record<string, string>> = {
  id: 'id',
  name: 'name',
  args: 'args',
  cwd: 'cwd',
  one_shot: 'oneShot',
  log: 'log',
  username: 'username',
  env: 'env',
  stop_signal: 'stopSignal',
  stop_timeout: 'stopTimeout',
};

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

/** An override per key of `entry` no prop declares. */
function strayOverrides(entry: JsonObject, declared: (key: string) => boolean): OverrideCode[] {
  return Object.keys(entry)
    .filter((k) => !declared(k))
    .map((k) => ({ path: k, value: entry[k] }));
}

function moduleCode(entry: JsonObject, secretPrefix: string, secrets: SecretVariable[]): ModuleCode | string {
  const name = text(entry.name);
  if (!name) return 'a module entry without a name';
  const moduleId = text(entry.module_id);
  const executablePath = text(entry.executable_path);
  const written = text(entry.type);
  // The construct writes the type its executable path says; a config saying otherwise keeps its own through an override.
  const type = executablePath === undefined ? 'registry' : 'local';
  const allEnv = stringMap(entry.env);
  if (allEnv === undefined) return `module ${name}: env values that are not text`;
  const env: Record<string, string> = {};
  const sensitiveEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(allEnv)) {
    // A value that is wholly an environment placeholder is no secret: kept as written.
    if (!isSecretEnvEntry(key, value)) {
      env[key] = value;
      continue;
    }
    const variable = secretVariableName(secretPrefix, name, key);
    sensitiveEnv[key] = variable;
    secrets.push({ variable, module: name, key, value });
  }
  const settings: Record<string, JsonValue> = {};
  for (const [key, prop] of Object.entries(MODULE_SETTINGS)) if (entry[key] !== undefined) settings[prop] = entry[key] as JsonValue;
  const overrides = strayOverrides(
    entry,
    (k) => (MODULE_KEYS.has(k) && k !== 'type') || (k in MODULE_SETTINGS && settingFits(k, entry[k])) || RELOAD_RECORD_KEYS.has(k),
  );
  // A type in another spelling than the construct's is kept as written (below); the construct writes registry or local.
  const typeIndex = overrides.findIndex((o) => o.path === 'type');
  if (typeIndex >= 0) overrides.splice(typeIndex, 1);
  // A setting of an unexpected type is kept through an override (and not given as a prop).
  for (const o of overrides) delete settings[MODULE_SETTINGS[o.path] ?? ''];
  // The older form has no type (or another one): the construct writes its own, so code says what the config has.
  if (written === undefined) overrides.push({ path: 'type', value: undefined });
  else if (written !== type) overrides.push({ path: 'type', value: written });
  // An env written empty is kept as written (the construct leaves an empty env out).
  if (isObject(entry.env) && Object.keys(entry.env).length === 0) overrides.push({ path: 'env', value: {} });
  const conventional = moduleId === undefined ? undefined : conventionalModuleName(moduleId);
  return {
    name,
    nameGiven: name !== conventional,
    ...(moduleId === undefined ? {} : { moduleId }),
    ...(text(entry.version) === undefined ? {} : { version: text(entry.version) }),
    ...(executablePath === undefined ? {} : { executablePath }),
    env,
    sensitiveEnv,
    settings,
    overrides,
  };
}

/** Whether a module setting's value has the type its prop takes. */
function settingFits(key: string, value: JsonValue | undefined): boolean {
  const flag = key === 'disabled' || key === 'tcp_mode' || key === 'reload_enabled';
  return flag ? typeof value === 'boolean' : typeof value === 'string';
}

function modelCode(model: string, modules: readonly ModuleCode[]): ModelCode {
  const cut = model.lastIndexOf(':');
  const prefix = model.slice(0, cut);
  const index = modules.findIndex((m) => m.moduleId !== undefined && m.moduleId === prefix);
  return index >= 0 && cut > 0 ? { module: index, model: model.slice(cut + 1) } : { triplet: model };
}

/** Props of a resource entry: key -> whether the value fits the prop. */
const RESOURCE_FIELDS: Readonly<Record<string, (v: JsonValue) => boolean>> = {
  name: (v) => typeof v === 'string',
  api: (v) => typeof v === 'string',
  type: (v) => typeof v === 'string',
  namespace: (v) => typeof v === 'string',
  model: (v) => typeof v === 'string',
  attributes: isObject,
  depends_on: (v) => Array.isArray(v) && v.every((d) => typeof d === 'string'),
  frame: isObject,
  service_configs: (v) => Array.isArray(v) && v.every(isObject),
  log_configuration: isObject,
  disabled: (v) => typeof v === 'boolean',
};

function resourceCode(
  entry: JsonObject,
  list: 'components' | 'services',
  names: readonly string[],
  modules: readonly ModuleCode[],
): ResourceCode {
  const fits = (k: string): boolean =>
    k in RESOURCE_FIELDS && entry[k] !== undefined && (RESOURCE_FIELDS[k] as (v: JsonValue) => boolean)(entry[k] as JsonValue);
  const has = (k: string): boolean => k !== 'name' && fits(k);
  const deps = has('depends_on') ? (entry.depends_on as string[]) : undefined;
  const written = text(entry.name);
  return {
    list,
    // An entry left unnamed is declared under the name the machine gives it, and its name then removed.
    name: written ?? (list === 'services' ? DEFAULT_SERVICE_NAME : 'unnamed'),
    ...(has('api') ? { api: entry.api as string } : {}),
    ...(has('type') ? { type: entry.type as string } : {}),
    ...(has('namespace') ? { namespace: entry.namespace as string } : {}),
    ...(has('model') ? { model: modelCode(entry.model as string, modules) } : {}),
    ...(has('attributes') ? { attributes: entry.attributes as JsonObject } : {}),
    ...(deps === undefined
      ? {}
      : {
          dependsOn: deps.map((d) => {
            const at = names.indexOf(d);
            return at >= 0 && names.indexOf(d, at + 1) < 0 ? at : d;
          }),
        }),
    ...(has('frame') ? { frame: entry.frame as JsonObject } : {}),
    ...(has('service_configs') ? { serviceConfigs: entry.service_configs as JsonValue[] } : {}),
    ...(has('log_configuration') ? { logConfiguration: entry.log_configuration as JsonObject } : {}),
    ...(has('disabled') ? { disabled: entry.disabled as boolean } : {}),
    overrides: written === undefined ? [{ path: 'name', value: undefined }, ...strayOverrides(entry, fits)] : strayOverrides(entry, fits),
  };
}

/** The value with each secret of `found` (by its steps below `base`) read from a variable. */
function withSecrets(value: JsonValue, base: readonly (string | number)[], found: readonly FoundSecretVariable[]): ValueCode {
  const inside = found.filter((f) => base.every((step, i) => f.steps[i] === step));
  if (inside.length === 0) return value;
  const exact = inside.find((f) => f.steps.length === base.length);
  if (exact) return new SecretRef(exact.variable);
  if (Array.isArray(value)) return value.map((v, i) => withSecrets(v, [...base, i], inside));
  if (!isObject(value)) return value;
  const out: { [key: string]: ValueCode } = {};
  for (const [k, v] of Object.entries(value)) out[k] = withSecrets(v, [...base, k], inside);
  return out;
}

interface FoundSecretVariable {
  readonly steps: readonly (string | number)[];
  readonly variable: string;
}

function remoteCode(entry: JsonObject, index: number, found: readonly FoundSecretVariable[]): EntryCode | undefined {
  if (typeof entry.name !== 'string' || typeof entry.address !== 'string') return undefined;
  const props: { [key: string]: ValueCode } = {};
  const overrides: string[] = [];
  for (const [key, value] of Object.entries(entry)) {
    const prop = REMOTE_PROPS[key];
    if (
      key === 'auth' &&
      isObject(value) &&
      Object.keys(value).every((k) => k === 'credentials' || k === 'entity') &&
      (value.credentials === undefined || isObject(value.credentials))
    ) {
      if (value.credentials !== undefined)
        props.credentials = withSecrets(value.credentials, ['remotes', index, 'auth', 'credentials'], found);
      if (value.entity !== undefined) props.entity = value.entity;
    } else if (prop !== undefined) props[prop] = withSecrets(value, ['remotes', index, key], found);
    else overrides.push(key);
  }
  // A remote with keys no prop declares is kept whole through an override.
  if (overrides.length > 0) return undefined;
  return { construct: 'Remote', id: entry.name, props };
}

function processCode(entry: JsonObject, index: number, found: readonly FoundSecretVariable[]): EntryCode | undefined {
  if (typeof entry.id !== 'string' || typeof entry.name !== 'string') return undefined;
  const props: { [key: string]: ValueCode } = {};
  for (const [key, value] of Object.entries(entry)) {
    const prop = PROCESS_PROPS[key];
    if (prop === undefined) return undefined;
    props[prop] = withSecrets(value, ['processes', index, key], found);
  }
  // The id is given as written: a construct id may differ from it (an id of digits is not one).
  return { construct: 'Process', id: entry.id, props };
}

const TRIGGER_KEYS: ReadonlySet<string> = new Set(['name', 'event', 'notifications', 'disabled', 'notes']);
const hasOnlyKeys = (value: JsonObject, keys: readonly string[]): boolean => Object.keys(value).every((k) => keys.includes(k));
const isTextList = (v: JsonValue | undefined): v is string[] => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string');

/** A trigger's event as the Trigger construct's `event` prop, or undefined when it holds what no prop declares. */
function triggerEventCode(event: JsonValue | undefined): ValueCode | undefined {
  if (!isObject(event) || typeof event.type !== 'string') return undefined;
  const { type } = event;
  if ((type === 'part_online' || type === 'part_offline') && hasOnlyKeys(event, ['type'])) return { type };
  if (type === 'part_data_ingested' && hasOnlyKeys(event, ['type', 'data_ingested'])) {
    const ingested = event.data_ingested;
    if (isObject(ingested) && hasOnlyKeys(ingested, ['data_types']) && isTextList(ingested.data_types))
      return { type, dataTypes: ingested.data_types };
  }
  if (type === 'conditional_logs_ingested' && hasOnlyKeys(event, ['type', 'log_levels']) && isTextList(event.log_levels))
    return { type, logLevels: event.log_levels };
  if (type === 'conditional_data_ingested' && hasOnlyKeys(event, ['type', 'conditional']) && isObject(event.conditional)) {
    const c = event.conditional;
    if (!hasOnlyKeys(c, ['data_capture_method', 'condition']) || typeof c.data_capture_method !== 'string') return undefined;
    if (c.condition === undefined) return { type, dataCaptureMethod: c.data_capture_method };
    const evals = isObject(c.condition) && hasOnlyKeys(c.condition, ['evals']) ? c.condition.evals : undefined;
    if (
      !Array.isArray(evals) ||
      !evals.every((e) => isObject(e) && hasOnlyKeys(e, ['operator', 'value']) && typeof e.operator === 'string' && e.value !== undefined)
    )
      return undefined;
    return { type, dataCaptureMethod: c.data_capture_method, evals };
  }
  return undefined;
}

/** A trigger's notification as a prop (its webhook URL by reference when it is a secret), or undefined when no prop declares it. */
function triggerNotificationCode(
  n: JsonValue,
  steps: readonly (string | number)[],
  found: readonly FoundSecretVariable[],
): ValueCode | undefined {
  if (!isObject(n) || !hasOnlyKeys(n, ['type', 'value', 'seconds_between_notifications']) || typeof n.value !== 'string') return undefined;
  const seconds = n.seconds_between_notifications;
  if (seconds !== undefined && typeof seconds !== 'number') return undefined;
  const every: { [key: string]: ValueCode } = seconds === undefined ? {} : { secondsBetweenNotifications: seconds };
  if (n.type === 'webhook') return { type: 'webhook', url: withSecrets(n.value, [...steps, 'value'], found), ...every };
  if (n.type === 'email') return { type: 'email', address: n.value, ...every };
  return undefined;
}

function triggerCode(entry: JsonObject, index: number, found: readonly FoundSecretVariable[]): EntryCode | undefined {
  if (typeof entry.name !== 'string' || entry.name === '' || !Object.keys(entry).every((k) => TRIGGER_KEYS.has(k))) return undefined;
  const event = triggerEventCode(entry.event);
  if (event === undefined || !Array.isArray(entry.notifications)) return undefined;
  const notifications = entry.notifications.map((n, j) => triggerNotificationCode(n, ['triggers', index, 'notifications', j], found));
  if (notifications.some((n) => n === undefined)) return undefined;
  const props: { [key: string]: ValueCode } = { name: entry.name, event, notifications: notifications as ValueCode[] };
  if (typeof entry.disabled === 'boolean') props.disabled = entry.disabled;
  else if (entry.disabled !== undefined) return undefined;
  if (typeof entry.notes === 'string') props.notes = entry.notes;
  else if (entry.notes !== undefined) return undefined;
  return { construct: 'Trigger', id: entry.name, props };
}

/**
 * The code that declares a part's config exactly: every entry and section, each with its
 * construct or prop where one declares it, and an override for anything else (unknown
 * keys, `_comment`, the lists the config does not have). Only the service's own keys
 * (`revision`, `cloud`) stay out of code. A config that does not pass fleetform's checks
 * (the machine server could not load it) is not adopted. Secrets the language declares are
 * read from environment variables named after `secretPrefix`. Fragment imports are read
 * apart (importsCode).
 */
export function machineConfigCode(config: Record<string, unknown>, secretPrefix: string): MachineCodeResult {
  const imports = Array.isArray(config.fragments) && config.fragments.length > 0;
  const invalid = validateMachineConfig(config).errors.find((e) => !(imports && FRAGMENT_RESOLVED_ISSUES.has(e.code)));
  if (invalid) return { ok: false, reason: `its config does not pass fleetform's checks at ${invalid.path}: ${invalid.message}` };
  const secrets: SecretVariable[] = [];
  const found: FoundSecretVariable[] = configSecrets(config).flatMap((s) => {
    if (typeof s.value !== 'string') return [];
    const variable = secretVariableName(secretPrefix, ...s.steps.map(String));
    secrets.push({ variable, module: '', key: s.path, value: s.value });
    return [{ steps: s.steps, variable }];
  });
  const overrides: OverrideCode[] = [];
  // Each list the config has, empty or not, and none it has not: `emptyLists` says which when not the default.
  const lists = presentLists(config);
  const emptyLists = sameLists(lists, DEFAULT_EMPTY_LISTS) ? undefined : lists;
  // Imports written as an empty list have no useFragment call to write them: kept as written.
  for (const key of ['fragments', 'fragment_mods'])
    if (Array.isArray(config[key]) && (config[key] as unknown[]).length === 0) overrides.push({ path: key, value: [] });
  const modules: ModuleCode[] = [];
  const rawModules = Array.isArray(config.modules) ? (config.modules as unknown[]) : [];
  for (const raw of rawModules) {
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
  const resources = entries.map(({ entry, section }) => resourceCode(entry, section, names, modules));
  const packages: PackageCode[] = [];
  const rawPackages = Array.isArray(config.packages) ? (config.packages as unknown[]) : [];
  const typedPackages = rawPackages.every(
    (raw) =>
      isObject(raw) &&
      Object.keys(raw).every((k) => PACKAGE_KEYS.has(k)) &&
      isPackageType(text(raw.type) ?? '') &&
      typeof raw.version === 'string' &&
      typeof raw.name === 'string' &&
      typeof raw.package === 'string',
  );
  if (typedPackages) {
    for (const raw of rawPackages as JsonObject[]) {
      const version = text(raw.version);
      packages.push({
        name: text(raw.name) ?? '',
        package: text(raw.package) ?? '',
        ...(version === LATEST_PACKAGE_VERSION ? {} : { version }),
        type: text(raw.type) as PackageType,
      });
    }
  } else if (config.packages !== undefined) overrides.push({ path: 'packages', value: config.packages as JsonValue });
  const settings: { [prop: string]: ValueCode } = {};
  const listEntries: EntryCode[] = [];
  for (const [key, value] of Object.entries(config) as Array<[string, JsonValue]>) {
    const adoption = sectionAdoption(key);
    if (adoption === 'apart' || !isCodeOwnedKey(key) || value === undefined) continue;
    const prop = adoption === 'prop' ? sectionProp(key) : undefined;
    if (prop !== undefined) {
      settings[prop] = withSecrets(value, [key], found);
      continue;
    }
    const list = adoption === 'entries' ? (key as EntrySection) : undefined;
    // An empty list is written by emptyLists (one emptyLists does not name, as `triggers`, by an override).
    if (list !== undefined && isEmptyListSection(list) && Array.isArray(value) && value.length === 0) continue;
    const made = list !== undefined ? listCode(list, value, found) : undefined;
    if (made !== undefined) listEntries.push(...made);
    else overrides.push({ path: key, value: withSecrets(value, [key], found) });
  }
  const code: MachineConfigCode = {
    modules,
    resources,
    packages,
    entries: listEntries,
    settings,
    overrides,
    ...(emptyLists ? { emptyLists } : {}),
  };
  return { ok: true, code, secrets, untouched: [] };
}

/** Whether two sets of lists are the same, order aside. */
function sameLists(a: readonly EmptyListSection[], b: readonly EmptyListSection[]): boolean {
  return a.length === b.length && a.every((list) => b.includes(list));
}

/** The code of one entry of each section adoption writes a construct per entry for. */
const ENTRY_CODE: Readonly<
  Record<EntrySection, (entry: JsonObject, index: number, found: readonly FoundSecretVariable[]) => EntryCode | undefined>
> = {
  remotes: remoteCode,
  processes: processCode,
  triggers: triggerCode,
};

function isEmptyListSection(key: string): key is EmptyListSection {
  return (EMPTY_LIST_SECTIONS as readonly string[]).includes(key);
}

/** The constructs of a list of entries (`remotes`, `processes`, `triggers`), or undefined when one entry needs what no prop declares (the list is then an override). */
function listCode(key: EntrySection, value: JsonValue, found: readonly FoundSecretVariable[]): EntryCode[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const out: EntryCode[] = [];
  for (let i = 0; i < value.length; i++) {
    const entry = value[i];
    const made = isObject(entry) ? ENTRY_CODE[key](entry, i, found) : undefined;
    if (made === undefined) return undefined;
    out.push(made);
  }
  return out;
}
