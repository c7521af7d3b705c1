import { z } from 'zod';
import {
  MachineConfigSchema,
  ModularResourceSchema,
  ModuleConfigSchema,
  MANAGED_CONFIG_SECTIONS,
  RESOURCE_LISTS,
  type MachineConfig,
  type ModularResource,
  type ModuleConfig,
} from './config';
import {
  MODULE_STARTUP_TIMEOUT_ENV,
  RESOURCE_CONFIGURATION_TIMEOUT_ENV,
  timeoutFromEnv,
  DEFAULT_MODULE_STARTUP_TIMEOUT_MS,
  DEFAULT_RESOURCE_CONFIGURATION_TIMEOUT_MS,
} from './duration';
import { findCycles, isAcyclic } from './cycles';
import { FleetformError } from './errors';
import {
  certainIssue,
  childPath,
  errorIssue,
  formatIssue,
  joinPath,
  toValidationResult,
  warningIssue,
  type Issue,
  type ValidationResult,
} from './issue';
import { checkModuleName, checkModuleNamingConvention, checkResourceName, conventionalModuleName } from './names';
import { checkJsonLimits, scanJson, type JsonScan } from './json-limits';
import { unreceivableEnvEntry } from './module-env';
import {
  checkPackageEntry,
  checkPackageReference,
  checkUniquePackageNames,
  knownPackages,
  PackageConfigSchema,
  type KnownPackages,
  type PackageConfig,
} from './packages';
import { findPlaceholders, mayHoldPlaceholder, PLACEHOLDER_PATTERN, type PlaceholderRef } from './placeholders';
import { BUILTIN_MODULE_ID, isApiTriplet, isModelTriplet, isModuleId } from './triplet';
import { ACCEPTED_VERSION_FORMS, isVersionPolicy } from './version-policy';
import { ownRecord } from './own-keys';
import { asIsTest } from './schema-as-is';
import { describeValue, schemaProblems, type SchemaProblem } from './schema-issues';
import { normalApi, normalModel } from './resource-forms';
import { isKnownBuiltinModel } from './builtin-models';
import { checkLanguageSections } from './config-checks';
import { moduleTypeOf, type ResourceListName } from './config';

export type { Issue, ValidationResult } from './issue';
export { formatIssue } from './issue';

/** Options of `validateMachineConfig`. */
export interface ValidateOptions {
  /** Registry modules may omit `version` (the engine pins them to the newest release at first apply). */
  allowUnpinnedModules?: boolean;
  /** Prefix of every reported path, e.g. `machines.robot1.config`. */
  pathPrefix?: string;
  /** What scanJson found of this very input, when the caller has walked it already: it is not walked again. */
  scan?: JsonScan;
  /**
   * Entries of `components`, `services` and `modules` known to have their list's form: made
   * by code from values already checked against it. Such an entry is read as it is, not
   * parsed again; every other check holds for it.
   */
  parsed?: ReadonlySet<unknown>;
  /**
   * Models the configured modules' manifests list (at the versions the machine will run).
   * A model so listed is provided, whatever its prefix: a module's manifest, not the
   * prefix convention, says which models it serves.
   */
  providedModels?: ReadonlySet<string>;
}

/** A machine config that did not validate; carries every error (and the warnings). */
export class ValidationError extends FleetformError {
  readonly issues: readonly Issue[];
  constructor(issues: readonly Issue[], options: { message?: string; path?: string } = {}) {
    const errors = issues.filter((i) => i.severity === 'error');
    const first = errors[0];
    super(
      options.message ??
        `invalid machine config: ${errors.length} error${errors.length === 1 ? '' : 's'}` +
          (errors.length > 0 ? `\n${errors.map((e) => `  ${formatIssue(e).replace(/\n/g, '\n  ')}`).join('\n')}` : ''),
      { path: options.path, hint: errors.length === 1 && first ? first.hint : undefined },
    );
    this.issues = issues;
  }
}

/** Appends every issue of `more` (most checks find none: no copy then). */
function pushAll(issues: Issue[], more: readonly Issue[]): void {
  for (let i = 0; i < more.length; i++) issues.push(more[i] as Issue);
}

/** A field of a value that may not be an object (undefined then). */
function fieldOf(value: unknown, key: string): unknown {
  return value === null || typeof value !== 'object' ? undefined : (value as Record<string, unknown>)[key];
}

/**
 * The entry schemas compiled: a fleet validates tens of thousands of entries per synth.
 * A valid entry takes the compiled path; an invalid one is parsed again by the schema
 * itself, so its issues are zod's own.
 */
const resourceEntrySchema = z.compile(ModularResourceSchema);
const moduleEntrySchema = z.compile(ModuleConfigSchema);
/** An entry zod would give back as it is (no copy made): most of a config's entries. */
const resourceEntryAsIs = asIsTest(ModularResourceSchema);

/** A shallow copy of an object without one of its own keys. */
function withoutKey(value: unknown, key: string): unknown {
  return ownRecord(Object.entries(value as object).filter(([k]) => k !== key));
}

const ISSUE_CODE: Readonly<Record<SchemaProblem['kind'], string>> = {
  unknown: 'schema',
  required: 'required',
  type: 'type',
  value: 'enum',
  other: 'schema',
};

/** Turns zod's structural issues into ours, with readable messages. */
function schemaIssues(error: z.ZodError, value: unknown, base: string): Issue[] {
  return schemaProblems(error.issues, value, { noun: 'field' }).map((p) => {
    const field = p.name;
    const expected = p.expected ?? '';
    const hint =
      p.kind === 'required'
        ? `add "${field}" (${expected})`
        : p.kind === 'type'
          ? `make "${field}" ${/^[aeiou]/.test(expected) ? 'an' : 'a'} ${expected}`
          : p.kind === 'value'
            ? `use one of ${expected}`
            : p.hint;
    return errorIssue(ISSUE_CODE[p.kind], joinPath(base, p.path), p.text, hint);
  });
}

interface Located<T> {
  value: T;
  path: string;
}

/** A resource entry with its API and model in their normal form (resource-forms.ts). */
type NormalResource = ModularResource & { name: string; api: string; model: string };

/** The name a service left unnamed gets on the machine: its API's default instance. */
export const DEFAULT_SERVICE_NAME = 'builtin';

interface LocatedResource extends Located<NormalResource> {
  list: (typeof RESOURCE_LISTS)[number];
}

/** The entry with its API and model read into their normal form (the stored entry keeps the author's). */
function normalResource(entry: ModularResource, list: ResourceListName): NormalResource {
  const api = normalApi(entry, list);
  const model = normalModel(entry, list);
  // The machine server reads an absent name and an empty one alike: a service's is its API's default.
  const name = list === 'services' && (entry.name === undefined || entry.name === '') ? DEFAULT_SERVICE_NAME : (entry.name ?? '');
  return api === entry.api && model === entry.model && name === entry.name ? (entry as NormalResource) : { ...entry, name, api, model };
}

/**
 * The same issues as warnings: what fails one entry at run time (the machine server leaves
 * that resource or module out and runs the rest), not the whole config. An error turned
 * into a warning is a certain failure of that entry.
 */
function asWarnings(issues: readonly Issue[]): readonly Issue[] {
  if (issues.length === 0) return issues;
  return issues.map((i) => (i.severity === 'warning' ? i : { ...i, severity: 'warning' as const, certainty: 'certain' as const }));
}

/** The problems of a module entry's name, module_id and type, whatever its type. */
function checkModuleIdentity(mod: ModuleConfig, path: string, issues: Issue[]): void {
  pushAll(issues, asWarnings(checkModuleName(mod.name, childPath(path, 'name'))));
  if (mod.module_id !== undefined && !isModuleId(mod.module_id)) {
    issues.push(
      warningIssue(
        'module-id',
        childPath(path, 'module_id'),
        `invalid module_id ${JSON.stringify(mod.module_id)}`,
        'use <namespace or organization id>:<module-name>, e.g. acme:sensors',
      ),
    );
  }
  if (mod.type !== undefined && mod.type !== 'registry' && mod.type !== 'local') {
    issues.push(
      warningIssue(
        'module-type',
        childPath(path, 'type'),
        `module "${mod.name}" has type ${JSON.stringify(mod.type)}: it is read as a ${moduleTypeOf(mod)} module`,
        'use "registry" or "local"',
      ),
    );
  }
}

/** The problems of a registry module's module_id, version and fields: what it needs to be fetched. */
function checkRegistryModule(mod: ModuleConfig, path: string, options: ValidateOptions, issues: Issue[]): void {
  if (mod.module_id === undefined) {
    issues.push(
      certainIssue(
        'required',
        childPath(path, 'module_id'),
        `module "${mod.name}" will not start: a registry module needs "module_id"`,
        'add "module_id": "<namespace>:<module-name>"',
      ),
    );
  }
  if (mod.version === undefined) {
    // Without a module id there is nothing to pin (that is warned about above).
    if (!options.allowUnpinnedModules && mod.module_id !== undefined) {
      issues.push(
        errorIssue(
          'required',
          childPath(path, 'version'),
          'a registry module needs "version"',
          `add a version: ${ACCEPTED_VERSION_FORMS.join('; ')}`,
        ),
      );
    }
  } else if (!isVersionPolicy(mod.version)) {
    issues.push(
      certainIssue(
        'module-version',
        childPath(path, 'version'),
        `module "${mod.name}" will not start: invalid module version ${JSON.stringify(mod.version)}`,
        `use one of: ${ACCEPTED_VERSION_FORMS.join('; ')}`,
      ),
    );
  }
  if (mod.executable_path !== undefined) {
    issues.push(
      warningIssue(
        'ignored-field',
        childPath(path, 'executable_path'),
        'executable_path is ignored for registry modules',
        'remove it, or make the module "local"',
      ),
    );
  }
}

/** The problems of a local module's executable_path and fields: what it needs to be started. */
function checkLocalModule(mod: ModuleConfig, path: string, issues: Issue[]): void {
  if (mod.executable_path === undefined || mod.executable_path === '') {
    issues.push(
      certainIssue(
        'required',
        childPath(path, 'executable_path'),
        `module "${mod.name}" will not start: a local module needs "executable_path"`,
        'add the absolute path of the module executable on the machine',
      ),
    );
  } else if (!mod.executable_path.match(PLACEHOLDER_PATTERN) && !/^(\/|[A-Za-z]:[\\/]|\\\\)/.test(mod.executable_path)) {
    issues.push(
      warningIssue(
        'executable-path',
        childPath(path, 'executable_path'),
        `executable_path ${JSON.stringify(mod.executable_path)} is not absolute`,
        'use an absolute path; the machine server does not resolve relative ones predictably',
      ),
    );
  }
  if (mod.version !== undefined) {
    issues.push(warningIssue('ignored-field', childPath(path, 'version'), 'version is ignored for local modules', 'remove it'));
  }
}

/** The problems of one entry of a module's env: a name or value the module cannot receive, an unusual name, a timeout it cannot read. */
function checkEnvEntry(path: string, key: string, value: string, issues: Issue[]): void {
  const unreceivable = unreceivableEnvEntry(key, value);
  if (unreceivable) {
    issues.push(
      errorIssue(
        'env-name',
        envPathOf(path, key),
        unreceivable,
        'use letters, digits and "_", not starting with a digit, and no NUL in values',
      ),
    );
  } else if (!ENV_NAME.test(key)) {
    issues.push(
      warningIssue(
        'env-name',
        envPathOf(path, key),
        `environment variable name ${JSON.stringify(key)} is unusual`,
        'use letters, digits and "_", not starting with a digit',
      ),
    );
  }
  if ((key === RESOURCE_CONFIGURATION_TIMEOUT_ENV || key === MODULE_STARTUP_TIMEOUT_ENV) && !value.match(PLACEHOLDER_PATTERN)) {
    const def = key === MODULE_STARTUP_TIMEOUT_ENV ? DEFAULT_MODULE_STARTUP_TIMEOUT_MS : DEFAULT_RESOURCE_CONFIGURATION_TIMEOUT_MS;
    const t = timeoutFromEnv({ [key]: value }, key, def);
    if (t.warning)
      issues.push(warningIssue('duration', envPathOf(path, key), t.warning, 'write a Go duration such as 1m0s, 7m15s or 300ms'));
  }
}

/** Adds the problems of one module entry to `issues` (`packages` undefined: the config holds no placeholder). */
function checkModule(
  mod: ModuleConfig,
  path: string,
  options: ValidateOptions,
  packages: KnownPackages | undefined,
  issues: Issue[],
): void {
  checkModuleIdentity(mod, path, issues);
  if (moduleTypeOf(mod) === 'registry') checkRegistryModule(mod, path, options, issues);
  else checkLocalModule(mod, path, issues);
  if (breaksNamingConvention(mod)) pushAll(issues, checkModuleNamingConvention(mod.name, mod.module_id, childPath(path, 'name')));
  if (mod.env !== undefined) for (const [key, value] of Object.entries(mod.env)) checkEnvEntry(path, key, value, issues);
  if (packages !== undefined && (mayHoldPlaceholder(mod.env) || mayHoldPlaceholder(mod.executable_path))) {
    const refs = [
      ...findPlaceholders(mod.env ?? {}, childPath(path, 'env')),
      ...findPlaceholders(mod.executable_path ?? '', childPath(path, 'executable_path')),
    ];
    pushAll(issues, placeholderIssues(refs, packages, `module ${JSON.stringify(mod.name)}`));
  }
}

/** The path of an entry of a module's env. */
function envPathOf(modulePath: string, key: string): string {
  return childPath(childPath(modulePath, 'env'), key);
}

/** The path of an entry of a resource's depends_on. */
function dependencyPath(resourcePath: string, index: number): string {
  return `${childPath(resourcePath, 'depends_on')}[${index}]`;
}

/** Environment variable names that raise no warning. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Whether checkModuleNamingConvention can have anything to say (it needs a module id whose conventional name differs). */
function breaksNamingConvention(mod: ModuleConfig): boolean {
  return mod.module_id !== undefined && conventionalModuleName(mod.module_id) !== mod.name;
}

function invalidPlaceholder(path: string, text: string): Issue {
  return errorIssue(
    'placeholder',
    path,
    `invalid placeholder ${text}`,
    "placeholders are ${environment.NAME}, read from the machine server environment, and ${packages.NAME} or ${packages.TYPE.NAME}, the folder of one of the machine's packages",
  );
}

/** The problems of placeholders in what `owner` names: keys that are none, packages the machine does not have or has of another type. */
function placeholderIssues(refs: readonly PlaceholderRef[], packages: KnownPackages, owner: string): Issue[] {
  const issues: Issue[] = [];
  for (const p of refs) {
    if (!p.valid) issues.push(invalidPlaceholder(p.path, p.text));
    else if (p.package) {
      const problem = checkPackageReference(p.package, p.text, p.path, packages, owner);
      if (problem) issues.push(problem);
    }
  }
  return issues;
}

const NO_MODELS: ReadonlySet<string> = new Set();

/** What model checks know of the configured modules (also of entries too broken to parse). */
interface KnownModules {
  /** module_id -> module type (undefined when the entry's type is broken). */
  ids: ReadonlyMap<string, string | undefined>;
  /** A local module without module_id exists, so any model may come from it. */
  lenient: boolean;
  /** The modules list itself is unusable: skip model-to-module checks. */
  unknown: boolean;
  /** Models the modules' manifests list, when known (see ValidateOptions.providedModels). */
  provided: ReadonlySet<string>;
}

function knownModules(raw: unknown[] | undefined, listBroken: boolean, provided: ReadonlySet<string>): KnownModules {
  const ids = new Map<string, string | undefined>();
  let lenient = false;
  for (const item of raw ?? []) {
    const id = fieldOf(item, 'module_id');
    const type = fieldOf(item, 'type');
    const t =
      type === 'registry' || type === 'local'
        ? type
        : type === undefined
          ? moduleTypeOf({ executable_path: fieldOf(item, 'executable_path') })
          : undefined;
    if (typeof id === 'string') {
      if (!ids.has(id)) ids.set(id, t);
    } else if (t !== 'registry') lenient = true;
  }
  return { ids, lenient, unknown: listBroken, provided };
}

/** Adds the problems of one resource entry to `issues` (`packages` undefined: the config holds no placeholder). */
function checkResource(
  res: NormalResource,
  path: string,
  modules: KnownModules,
  packages: KnownPackages | undefined,
  issues: Issue[],
): void {
  pushAll(issues, asWarnings(checkResourceName(res.name, childPath(path, 'name'))));
  if (!isApiTriplet(res.api)) {
    issues.push(
      certainIssue(
        'api-triplet',
        childPath(path, 'api'),
        `invalid API ${JSON.stringify(res.api)} of resource "${res.name}"`,
        'use <namespace>:<component|service>:<api-name>, e.g. rdk:component:sensor',
      ),
    );
  }
  if (!isModelTriplet(res.model)) {
    issues.push(
      certainIssue(
        'model-triplet',
        childPath(path, 'model'),
        `invalid model ${JSON.stringify(res.model)} of resource "${res.name}"`,
        'use <namespace>:<module-name>:<model-name>, e.g. acme:sensors:hc-sr04',
      ),
    );
  } else if (!modules.unknown) {
    // A well-formed triplet: its module id is what comes before the last ":".
    const moduleId = res.model.slice(0, res.model.lastIndexOf(':'));
    if (moduleId === BUILTIN_MODULE_ID) {
      // Built-in models come from no module; one not known may be newer than this list.
      if (!isKnownBuiltinModel(res.model)) {
        issues.push(
          warningIssue(
            'unknown-builtin-model',
            childPath(path, 'model'),
            `resource "${res.name}" may not start: ${JSON.stringify(res.model)} is no builtin model fleetform knows`,
            "check the model name, or use the triplet of a module's model",
          ),
        );
      }
    } else if (!modules.ids.has(moduleId) && !modules.provided.has(res.model)) {
      const known = [...modules.ids.keys()];
      const message = `resource "${res.name}" will not start: model ${JSON.stringify(res.model)} needs a module with module_id "${moduleId}"; configured module ids: ${known.length > 0 ? known.join(', ') : '(none)'}`;
      const hint = `add a module with "module_id": "${moduleId}", or change the model to one of a configured module`;
      issues.push(
        (modules.lenient ? warningIssue : certainIssue)(
          'model-module-mismatch',
          childPath(path, 'model'),
          modules.lenient ? `${message} (a local module without module_id may provide it)` : message,
          hint,
        ),
      );
    }
  }
  if (packages !== undefined && mayHoldPlaceholder(res.attributes)) {
    pushAll(
      issues,
      placeholderIssues(
        findPlaceholders(res.attributes ?? {}, childPath(path, 'attributes')),
        packages,
        `resource ${JSON.stringify(res.name)}`,
      ),
    );
  }
}

/** What a check finding nothing returns: one empty list for every config. */
const NO_ISSUES: readonly Issue[] = Object.freeze([]);

function checkUniqueNames(resources: readonly LocatedResource[]): readonly Issue[] {
  // Names unique among all resources are unique per API: nothing to look for.
  const names = new Set<string>();
  for (const r of resources) names.add(r.value.name);
  if (names.size === resources.length) return NO_ISSUES;
  const issues: Issue[] = [];
  const seen = new Map<string, string>();
  for (const r of resources) {
    const key = `${r.value.api}\u0000${r.value.name}`;
    const first = seen.get(key);
    if (first !== undefined) {
      issues.push(
        certainIssue(
          'duplicate-resource-name',
          childPath(r.path, 'name'),
          `duplicate resource name "${r.value.name}" for API ${r.value.api} (also ${first}): neither is reachable`,
          'names are unique per API; rename one of them',
        ),
      );
    } else seen.set(key, r.path);
  }
  return issues;
}

function checkUniqueModules(modules: readonly Located<ModuleConfig>[]): readonly Issue[] {
  // Nearly always every name and module id is given once: nothing to look for.
  const names = new Set<string>();
  const ids = new Set<string>();
  let idCount = 0;
  for (const m of modules) {
    names.add(m.value.name);
    if (m.value.module_id !== undefined) {
      ids.add(m.value.module_id);
      idCount += 1;
    }
  }
  if (names.size === modules.length && ids.size === idCount) return NO_ISSUES;
  const issues: Issue[] = [];
  const firstByName = new Map<string, string>();
  const firstById = new Map<string, string>();
  for (const m of modules) {
    const first = firstByName.get(m.value.name);
    if (first !== undefined) {
      issues.push(
        certainIssue(
          'duplicate-module-name',
          childPath(m.path, 'name'),
          `duplicate module name "${m.value.name}" (also ${first})`,
          'module names are unique; rename or remove one',
        ),
      );
    } else firstByName.set(m.value.name, m.path);
    const id = m.value.module_id;
    if (id !== undefined) {
      const firstId = firstById.get(id);
      if (firstId !== undefined) {
        issues.push(
          certainIssue(
            'duplicate-module-id',
            childPath(m.path, 'module_id'),
            `module "${id}" is configured twice (also ${firstId})`,
            'keep one entry per module',
          ),
        );
      } else firstById.set(id, m.path);
    }
  }
  return issues;
}

const NO_NAMES: readonly string[] = [];

/** The names of broken entries when there are none: one set for every config. */
const NO_BROKEN_NAMES: ReadonlySet<string> = new Set();

/** A dependency on a resource the machine does not build: the dependent will likely not start either. */
function disabledDependency(r: LocatedResource, dep: string, index: number): Issue {
  return warningIssue(
    'depends-on-disabled',
    dependencyPath(r.path, index),
    `resource "${r.value.name}" depends on "${dep}", which is disabled: the machine does not build it, so "${r.value.name}" may not start`,
    `enable "${dep}" (remove its disabled: true), disable "${r.value.name}" too, or remove the dependency`,
  );
}

/** Each resource name's first resource (by index), and the names given to several resources with all of theirs (rare: undefined when none is). */
interface ResourcesByName {
  readonly first: ReadonlyMap<string, number>;
  readonly repeated: ReadonlyMap<string, number[]> | undefined;
}

function resourcesByName(resources: readonly LocatedResource[]): ResourcesByName {
  const first = new Map<string, number>();
  let repeated: Map<string, number[]> | undefined;
  for (let i = 0; i < resources.length; i++) {
    const name = (resources[i] as LocatedResource).value.name;
    const firstIndex = first.get(name);
    if (firstIndex === undefined) first.set(name, i);
    else {
      repeated ??= new Map();
      const all = repeated.get(name);
      if (all) all.push(i);
      else repeated.set(name, [firstIndex, i]);
    }
  }
  return { first, repeated };
}

/**
 * What entry `j` of resource `r`'s depends_on names: the index of its target (an edge of
 * the graph), or undefined with the issue it has, if any, added to `issues`.
 */
function dependencyTarget(
  resources: readonly LocatedResource[],
  r: LocatedResource,
  j: number,
  byName: ResourcesByName,
  knownNames: ReadonlySet<string> | undefined,
  issues: Issue[],
): number | undefined {
  const dep = (r.value.depends_on as string[])[j] as string;
  const target = byName.first.get(dep);
  const targets = byName.repeated?.get(dep);
  if (dep === r.value.name) {
    issues.push(
      certainIssue(
        'depends-on-self',
        dependencyPath(r.path, j),
        `resource "${r.value.name}" depends on itself`,
        'remove it from its own depends_on',
      ),
    );
  } else if (target === undefined && (knownNames === undefined || knownNames.has(dep))) {
    // The target is configured but malformed (or may be): its own errors are reported already.
  } else if (target === undefined) {
    const names = [...byName.first.keys()].filter((n) => n !== r.value.name);
    issues.push(
      certainIssue(
        'depends-on-missing',
        dependencyPath(r.path, j),
        `resource "${r.value.name}" will not start: it depends on "${dep}", which is not configured`,
        names.length > 0
          ? `depends_on names a resource of this machine: ${names.join(', ')}`
          : 'configure that resource or remove the dependency',
      ),
    );
  } else if (targets !== undefined && new Set(targets.map((t) => resources[t]?.value.api)).size > 1) {
    const where = targets.map((t) => `${resources[t]?.value.api} (${resources[t]?.path})`).join(', ');
    issues.push(
      warningIssue(
        'depends-on-ambiguous',
        dependencyPath(r.path, j),
        `dependency "${dep}" of resource "${r.value.name}" is ambiguous: ${where}`,
        'give the resources distinct names',
      ),
    );
  } else {
    if (resources[target]?.value.disabled === true && r.value.disabled !== true) issues.push(disabledDependency(r, dep, j));
    return target;
  }
  return undefined;
}

/** An issue per cycle of the dependency graph (`edges`: each resource's targets, by index). */
function cycleIssues(resources: readonly LocatedResource[], edges: readonly number[][]): Issue[] {
  const issues: Issue[] = [];
  for (const cycle of findCycles([...resources.keys()], (n) => edges[n] ?? [])) {
    const names = [...cycle, cycle[0] as number].map((n) => resources[n]?.value.name ?? '?');
    const head = resources[cycle[0] as number];
    issues.push(
      certainIssue(
        'depends-on-cycle',
        head ? childPath(head.path, 'depends_on') : '',
        `circular dependency: ${names.join(' -> ')}`,
        'remove one of these dependencies to break the cycle',
      ),
    );
  }
  return issues;
}

/**
 * depends_on: every name must resolve (by short name) to exactly one API's resource,
 * not the resource itself, and the graph must have no cycle. `knownNames` holds names
 * of entries too broken to check (undefined: some entry's name is unknown, so missing
 * targets are not reported at all, to avoid errors that follow from another one).
 */
function checkDependencies(resources: readonly LocatedResource[], knownNames: ReadonlySet<string> | undefined): Issue[] {
  const issues: Issue[] = [];
  const byName = resourcesByName(resources);
  const edges: number[][] = [];
  for (const r of resources) {
    const out: number[] = [];
    const dependsOn = r.value.depends_on ?? NO_NAMES;
    for (let j = 0; j < dependsOn.length; j++) {
      // Holes of a sparse list are passed by, as forEach does.
      if (!(j in dependsOn)) continue;
      const target = dependencyTarget(resources, r, j, byName, knownNames, issues);
      if (target !== undefined && !out.includes(target)) out.push(target);
    }
    edges.push(out);
  }
  if (isAcyclic(edges)) return issues;
  pushAll(issues, cycleIssues(resources, edges));
  return issues;
}

/** What reading the config's lists found out beyond their issues. */
interface ListsRead {
  /** Some entry's name is unknown (a list that is no array, an entry without a string name). */
  namesUnknown: boolean;
}

/** The list under `key`, if any; anything but an array is an issue (and its names are unknown). */
function listOf(root: Record<string, unknown>, key: string, issues: Issue[], lists: ListsRead): unknown[] | undefined {
  const v = root[key];
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) {
    issues.push(errorIssue('type', key, `"${key}" must be an array, found ${describeValue(v)}`, `write "${key}": [ ... ]`));
    lists.namesUnknown = true;
    return undefined;
  }
  return v;
}

/** A parse that succeeded: what an entry known to have its list's form reads as. */
function parsedAs<T>(data: T): { success: true; data: T } {
  return { success: true, data };
}

/** Whether a value is an object zod's records take: no class instance (but a null-prototype object). */
function isPlainRecord(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Reads one entry of `modules`: its env from the entry's own keys, the rest as the schema takes it (as it is when `parsed`). */
function readModule(item: unknown, path: string, modules: Located<ModuleConfig>[], issues: Issue[], parsed: boolean): void {
  // env is checked from the config's own keys (zod leaves out keys such as "__proto__").
  const rawEnv = fieldOf(item, 'env');
  const envIsRecord = rawEnv !== null && typeof rawEnv === 'object' && !Array.isArray(rawEnv);
  const r =
    parsed && (rawEnv === undefined || isPlainRecord(rawEnv))
      ? parsedAs(item as ModuleConfig)
      : moduleEntrySchema.safeParse(envIsRecord ? withoutKey(item, 'env') : item);
  if (!envIsRecord) {
    if (r.success) modules.push({ value: r.data, path });
    else pushAll(issues, schemaIssues(r.error, item, path));
    return;
  }
  const env = Object.entries(rawEnv);
  let allStrings = true;
  for (const [key, v] of env) {
    if (typeof v !== 'string') {
      allStrings = false;
      issues.push(
        errorIssue('type', childPath(childPath(path, 'env'), key), `expected string, found ${describeValue(v)}`, `make "${key}" a string`),
      );
    }
  }
  if (r.success) {
    const ownEnv = ownRecord(
      allStrings ? (env as Array<[string, string]>) : env.filter((e): e is [string, string] => typeof e[1] === 'string'),
    );
    modules.push({ value: { ...r.data, env: ownEnv }, path });
  } else pushAll(issues, schemaIssues(r.error, item, path));
}

/** The modules list read: its entries that parse, and what model checks know of the modules. */
interface ModulesRead {
  readonly modules: Located<ModuleConfig>[];
  readonly known: KnownModules;
}

function readModules(root: Record<string, unknown>, options: ValidateOptions, issues: Issue[], lists: ListsRead): ModulesRead {
  const modules: Located<ModuleConfig>[] = [];
  const rawModules = listOf(root, 'modules', issues, lists);
  const known = knownModules(rawModules, root.modules !== undefined && rawModules === undefined, options.providedModels ?? NO_MODELS);
  if (rawModules !== undefined) {
    for (let i = 0; i < rawModules.length; i++) {
      // Holes of a sparse list are passed by, as forEach does.
      if (i in rawModules) readModule(rawModules[i], `modules[${i}]`, modules, issues, options.parsed?.has(rawModules[i]) === true);
    }
  }
  return { modules, known };
}

/** The resource lists read: their entries that parse, in their normal form, and the names of the broken ones. */
interface ResourcesRead {
  readonly resources: LocatedResource[];
  readonly brokenNames: ReadonlySet<string> | undefined;
}

/** Reads one entry of a resource list: as it is when `parsed` or when zod would give it back as it is, else as the schema parses it. */
function readResource(item: unknown, attributes: unknown, parsed: boolean): z.ZodSafeParseResult<ModularResource> {
  if (parsed && (attributes === undefined || isPlainRecord(attributes))) return parsedAs(item as ModularResource);
  return resourceEntryAsIs(item) ? { success: true as const, data: item as ModularResource } : resourceEntrySchema.safeParse(item);
}

function readResources(root: Record<string, unknown>, options: ValidateOptions, issues: Issue[], lists: ListsRead): ResourcesRead {
  const resources: LocatedResource[] = [];
  let brokenNames: Set<string> | undefined;
  for (let l = 0; l < RESOURCE_LISTS.length; l++) {
    const list = RESOURCE_LISTS[l] as LocatedResource['list'];
    const items = listOf(root, list, issues, lists);
    if (items === undefined) continue;
    for (let i = 0; i < items.length; i++) {
      if (!(i in items)) continue;
      const item = items[i];
      const path = `${list}[${i}]`;
      const attributes = fieldOf(item, 'attributes') as Record<string, unknown> | undefined;
      const r = readResource(item, attributes, options.parsed?.has(item) === true);
      // The entry's own attributes, as given.
      if (r.success)
        resources.push({
          value: normalResource(attributes === undefined || r.data.attributes === attributes ? r.data : { ...r.data, attributes }, list),
          path,
          list,
        });
      else {
        pushAll(issues, schemaIssues(r.error, item, path));
        const name = fieldOf(item, 'name');
        if (typeof name === 'string') (brokenNames ??= new Set()).add(name);
        else lists.namesUnknown = true;
      }
    }
  }
  return { resources, brokenNames };
}

/**
 * Reads the packages list and adds the problems of its entries (a package the machine
 * server cannot use fails that package alone); returns the packages placeholders may name,
 * known only when some string of the config may hold a placeholder.
 */
function readPackages(root: Record<string, unknown>, scan: JsonScan, issues: Issue[], lists: ListsRead): KnownPackages | undefined {
  const rawPackages = listOf(root, 'packages', issues, lists);
  const packagesKnown = scan.mayHoldTemplate
    ? knownPackages(rawPackages, root.packages !== undefined && rawPackages === undefined)
    : undefined;
  const packages: Located<PackageConfig>[] = [];
  if (rawPackages !== undefined) {
    for (let i = 0; i < rawPackages.length; i++) {
      if (!(i in rawPackages)) continue;
      const item = rawPackages[i];
      const path = `packages[${i}]`;
      const r = PackageConfigSchema.safeParse(item);
      if (r.success) packages.push({ value: r.data, path });
      else pushAll(issues, schemaIssues(r.error, item, path));
    }
  }
  for (const p of packages) pushAll(issues, asWarnings(checkPackageEntry(p.value, p.path)));
  pushAll(issues, asWarnings(checkUniquePackageNames(packages)));
  return packagesKnown;
}

/** What validating a value that is no JSON object finds. */
function notAnObject(input: unknown): Issue {
  return errorIssue(
    'type',
    '',
    `a machine config is a JSON object, found ${describeValue(input)}`,
    'start from {"components": [], "modules": []}',
  );
}

/**
 * Validates a raw machine config (the JSON the service stores) and returns every
 * problem at once: structure, names and their uniqueness, API and model triplets, the
 * model-to-module rule, module fields, version policies, packages, placeholders (package
 * ones against the machine's packages), timeouts and depends_on (existence, self, ambiguity, cycles). Entries whose structure is broken
 * are reported and left out of the checks that need their fields.
 */
export function validateMachineConfig(input: unknown, options: ValidateOptions = {}): ValidationResult {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return prefixed(toValidationResult([notAnObject(input)]), options.pathPrefix);
  }
  // One walk says whether the config is within the limits and whether it may hold placeholders.
  const scan = options.scan ?? scanJson(input);
  const beyondLimits = scan.withinLimits ? undefined : checkJsonLimits(input);
  if (beyondLimits) return prefixed(toValidationResult([beyondLimits]), options.pathPrefix);
  const root = input as Record<string, unknown>;
  const issues: Issue[] = [];
  const lists: ListsRead = { namesUnknown: false };
  const { modules, known } = readModules(root, options, issues, lists);
  const { resources, brokenNames } = readResources(root, options, issues, lists);
  const packagesKnown = readPackages(root, scan, issues, lists);
  // Indexed loops: a fleet validates its configs before the engine has optimized this code.
  for (let i = 0; i < modules.length; i++) {
    const m = modules[i] as Located<ModuleConfig>;
    checkModule(m.value, m.path, options, packagesKnown, issues);
  }
  pushAll(issues, checkUniqueModules(modules));
  for (let i = 0; i < resources.length; i++) {
    const r = resources[i] as LocatedResource;
    checkResource(r.value, r.path, known, packagesKnown, issues);
  }
  pushAll(issues, checkUniqueNames(resources));
  pushAll(issues, checkDependencies(resources, lists.namesUnknown ? undefined : (brokenNames ?? NO_BROKEN_NAMES)));
  pushAll(issues, checkLanguageSections(root, resources));
  return prefixed(toValidationResult(inDocumentOrder(issues)), options.pathPrefix);
}

const SECTION_ORDER: readonly string[] = ['', ...MANAGED_CONFIG_SECTIONS];

/** Sorts issues by the entry they concern (components, services, modules, by index), keeping the order within one entry. */
function inDocumentOrder(issues: Issue[]): Issue[] {
  // Nearly every config has no issue: nothing to sort.
  if (issues.length < 2) return issues;
  const rank = (path: string): [number, number] => {
    const m = /^([A-Za-z_$][\w$]*)?(?:\[(\d+)\])?/.exec(path);
    const section = SECTION_ORDER.indexOf(m?.[1] ?? '');
    return [section < 0 ? SECTION_ORDER.length : section, m?.[2] === undefined ? -1 : Number(m[2])];
  };
  return issues
    .map((issue, i) => ({ issue, i, r: rank(issue.path) }))
    .sort((a, b) => a.r[0] - b.r[0] || a.r[1] - b.r[1] || a.i - b.i)
    .map((x) => x.issue);
}

function prefixed(result: ValidationResult, prefix: string | undefined): ValidationResult {
  if (!prefix) return result;
  const fix = (i: Issue): Issue => ({ ...i, path: joinPath(prefix, i.path) });
  return { errors: result.errors.map(fix), warnings: result.warnings.map(fix) };
}

/**
 * Validates and returns the typed config, or throws a ValidationError carrying every
 * issue. The result is a deep copy of the input, unknown keys and key order included,
 * so it can be written back to the service unchanged.
 */
export function parseMachineConfig(input: unknown, options: ValidateOptions = {}): MachineConfig {
  const result = validateMachineConfig(input, options);
  if (result.errors.length > 0) throw new ValidationError([...result.errors, ...result.warnings], { path: options.pathPrefix });
  MachineConfigSchema.parse(input);
  return structuredClone(input) as MachineConfig;
}
