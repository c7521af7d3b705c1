import type { IConstruct } from 'constructs';
import type { MachineConfig } from '../domain';
import { DEFAULT_EMPTY_LISTS, emptyConfigSections, withEmptyLists, type ConfigSections } from '../domain/config';
import { isFinished } from './construction';
import { withOverrides } from './config-overrides';
import { declaredSectionsOf, withSections } from './machine-sections';
import { constructTypeOf } from './construct-types';
import { holdsMachineParts } from './machine-scope';
import type { PackageConfig } from '../domain/packages';
import { childPathOf, type SecretReference } from '../domain/secret-reference';
import { configSecrets } from './secret';
import type { IMachine as Machine, IModularResource as ModularResource, IModule as Module, IPackage as Package } from './machine-parts';

/** Where an entry of a machine config came from: `components[1]` was declared by that construct. */
export interface ConfigEntrySource {
  /** JSON path of the entry, e.g. `components[1]`. */
  readonly path: string;
  readonly construct: Module | ModularResource | Package;
}

/** A source whose path is written out only when asked: a machine's checks need it for an issue alone. */
class EntrySource implements ConfigEntrySource {
  constructor(
    private readonly list: string,
    private readonly index: number,
    readonly construct: ConfigEntrySource['construct'],
  ) {}

  get path(): string {
    return `${this.list}[${this.index}]`;
  }
}

/** A machine's config document with the construct behind each entry. */
export interface AssembledMachine {
  /** Its lists in declaration order, each present when it has entries or `emptyLists` names it (by default `components`, `services` and `modules`). */
  readonly config: MachineConfig & Partial<ConfigSections> & { packages?: PackageConfig[] };
  /** The packages the machine synthesizes: a deployed model's is written at plan, when its organization is known (deploy_models). */
  readonly synthesizedPackages: readonly PackageConfig[];
  readonly sources: readonly ConfigEntrySource[];
  /** Every secret module environment entry by `<moduleName>.<ENV_KEY>`, in sorted order. */
  readonly secretEnv: Readonly<Record<string, string>>;
  /** The package constructs behind `packages`, in declaration order. */
  readonly packageParts: readonly Package[];
  /** Secrets by reference, by the path of their value in the config (see configSecrets): synthesis leaves those paths out. */
  readonly secretReferences: Readonly<Record<string, SecretReference>>;
  /** The entries their constructs made from props their schemas checked: the config's checks read them without parsing them again. */
  readonly parsedEntries: ReadonlySet<unknown>;
}

/** The parts of a machine by kind, each in declaration order. */
export interface MachinePartLists {
  modules: Module[];
  resources: ModularResource[];
  packages: Package[];
}

/** The modules, modular resources and packages of a machine, in declaration order (depth first). */
export function machineParts(machine: Machine): MachinePartLists {
  const parts: MachinePartLists = { modules: [], resources: [], packages: [] };
  collectParts(machine, parts);
  return parts;
}

function collectParts(scope: IConstruct, into: MachinePartLists): void {
  for (const child of scope.node.children) {
    const kind = constructTypeOf(child);
    if (!isFinished(child)) continue;
    if (kind === 'module') into.modules.push(child as Module);
    else if (kind === 'modular-resource') into.resources.push(child as ModularResource);
    else if (kind === 'package') into.packages.push(child as Package);
    if (!holdsMachineParts(child)) collectParts(child, into);
  }
}

/** A part that gives its entry of the machine config. */
interface ConfigPart<C> {
  toConfig(): C;
}

/** Entry makers by the toConfig method they stand for: see sharesConfigEntries. */
const entryMakers = new Map<unknown, (part: never) => unknown>();

/**
 * Declares how the entries of a class's parts are made without copies: what its own
 * toConfig returns, sharing the part's objects (the machine config only reads them). A
 * subclass overriding toConfig, or a part of another copy of this library, is asked for
 * toConfig as ever.
 */
export function sharesConfigEntries<P extends ConfigPart<C>, C>(toConfig: P['toConfig'], entry: (part: P) => C): void {
  entryMakers.set(toConfig, entry);
}

/** Whether a part's entry is made of its checked props alone, by the class that says so of its toConfig. */
const checkedEntries = new Map<unknown, (part: never) => boolean>();

/**
 * Declares which parts of a class give an entry made of their props alone, checked by a
 * schema at least as strict as their list's (no override, no value the schema did not
 * check): the machine's checks take that entry as it is, without parsing it again. A
 * subclass overriding toConfig, or a part of another copy of this library, is parsed.
 */
export function givesCheckedEntries<P extends ConfigPart<unknown>>(toConfig: P['toConfig'], checked: (part: P) => boolean): void {
  checkedEntries.set(toConfig, checked);
}

function isCheckedEntryOf(part: ConfigPart<unknown>): boolean {
  const checked = checkedEntries.get(part.toConfig) as ((part: ConfigPart<unknown>) => boolean) | undefined;
  return checked !== undefined && checked(part);
}

const NO_PARSED_ENTRIES: ReadonlySet<unknown> = new Set();

/** A part's entry of the machine config: toConfig's, without copies where its class says how (do not mutate). */
export function configEntryOf<C>(part: ConfigPart<C>): C {
  const make = entryMakers.get(part.toConfig) as ((part: ConfigPart<C>) => C) | undefined;
  return make ? make(part) : part.toConfig();
}

/** The machine's whole config document (secret env included) as compact JSON text. */
export function machineConfigJson(machine: Machine): string {
  return JSON.stringify(assembleMachine(machine).config);
}

/**
 * The config document a machine synthesizes, with the construct behind each entry,
 * assembled anew on each call (a large fleet keeps no copy of every config in memory).
 * Its entries may share objects with the constructs: do not mutate it.
 */
export function assembleMachine(machine: Machine): AssembledMachine {
  const { modules, resources, packages } = machineParts(machine);
  const config: ConfigSections & { packages?: PackageConfig[] } = emptyConfigSections();
  const sources: ConfigEntrySource[] = [];
  let parsedEntries: Set<unknown> | undefined;
  for (let i = 0; i < resources.length; i++) {
    const resource = resources[i] as ModularResource;
    const listName = resource.configList;
    const list = config[listName];
    sources.push(new EntrySource(listName, list.length, resource));
    const entry = configEntryOf(resource);
    if (isCheckedEntryOf(resource)) (parsedEntries ??= new Set()).add(entry);
    list.push(entry);
  }
  for (let i = 0; i < modules.length; i++) {
    const module = modules[i] as Module;
    sources.push(new EntrySource('modules', config.modules.length, module));
    const entry = module.toConfig();
    if (isCheckedEntryOf(module)) (parsedEntries ??= new Set()).add(entry);
    config.modules.push(entry);
  }
  const synthesizedPackages: PackageConfig[] = [];
  if (packages.length > 0) {
    const list: PackageConfig[] = [];
    for (const pkg of packages) {
      sources.push({ path: `packages[${list.length}]`, construct: pkg });
      const entry = pkg.toConfig();
      list.push(entry);
      if (pkg.trainingJob === undefined) synthesizedPackages.push(entry);
    }
    config.packages = list;
  }
  // Sections beyond modules, resources and packages, then the lists held empty, then the overrides, come last.
  const sections = declaredSectionsOf(machine);
  const emptyLists = sections?.emptyLists ?? DEFAULT_EMPTY_LISTS;
  // The default holds the three lists a machine always writes: nothing to add or take out.
  const listed =
    emptyLists === DEFAULT_EMPTY_LISTS ? withSections(config, sections) : withEmptyLists(withSections(config, sections), emptyLists);
  const whole = sections === undefined ? listed : withOverrides(listed, sections.overrides);
  // A secret given by reference anywhere in the config, modules' env included, is synthesized as its reference.
  const found = configSecrets(whole);
  const secretReferences = { ...found.references, ...moduleSecretReferences(modules) };
  return {
    config: found.config,
    sources,
    secretEnv: secretEnvOf(modules),
    synthesizedPackages,
    packageParts: packages,
    secretReferences,
    parsedEntries: parsedEntries ?? NO_PARSED_ENTRIES,
  };
}

/** The env entries modules give by reference, by their path in the config (`modules.<name>.env.<KEY>`). */
function moduleSecretReferences(modules: readonly Module[]): Record<string, SecretReference> {
  const out: Record<string, SecretReference> = {};
  for (const module of modules) {
    const refs = module.secretReferences;
    if (refs === undefined) continue;
    for (const [key, ref] of Object.entries(refs)) out[childPathOf(['modules', module.name, 'env', key])] = ref;
  }
  return out;
}

/** Every secret environment entry of the modules by `<moduleName>.<ENV_KEY>`, in sorted order. */
export function secretEnvOf(modules: readonly Module[]): Record<string, string> {
  const secret: Array<[string, string]> = [];
  for (const module of modules) {
    const keys = module.sensitiveEnvKeys;
    if (keys.length === 0) continue;
    // From the props every copy of this library has (a module may come from another copy).
    const env = { ...module.env, ...module.sensitiveEnv };
    // An entry given by reference is no text: it travels in `secrets`.
    for (const key of keys) if (typeof env[key] === 'string') secret.push([`${module.name}.${key}`, env[key]]);
  }
  if (secret.length === 0) return {};
  secret.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(secret);
}
