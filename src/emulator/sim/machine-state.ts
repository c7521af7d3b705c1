/**
 * What a simulated machine runs, as a pure step from one check-in to the next: the config
 * revision it ingested, its modules (the versions their policies resolved to, as the app's
 * deployments record them) and its resources, with the log lines each change writes.
 *
 * A config revision is ingested at the first check-in that sees it. Modules whose version
 * changed (or that are new) start, taking `moduleStartMs`; resources whose entry changed
 * configure after their module is up, taking `resourceConfigureMs`. A module armed to crash
 * exits at every start and is restarted at every check-in (`consecutive_failures` counts
 * them); its resources stay unhealthy, as do resources of a model armed unhealthy.
 *
 * Packages download when first listed (or when their version changes), taking
 * `moduleStartMs`; one the registry lacks, or armed to fail, is FAILED. A resource whose
 * attributes use a package's placeholder configures once that package is READY, and is
 * unhealthy while it is FAILED.
 */
import * as crypto from 'node:crypto';
import type { ResourceListName } from '../../domain/config';
import { isKnownBuiltinModel } from '../../domain/builtin-models';
import { findPlaceholders } from '../../domain/placeholders';
import { placeholderReplacementError, type PackageReference } from '../../domain/packages';
import { normalApi, normalModel } from '../../domain/resource-forms';
import { isBuiltinModel, moduleIdOfModel } from '../../domain/triplet';
import { implicitDependencies } from '../../domain/implicit-dependencies';
import { checkCaptureMethods } from '../../domain/data-capture';
import { checkResourceName } from '../../domain/names';
import { stepJobs, type JobRun, type FetchedJob } from './jobs';
import { maintenanceHold, type MaintenanceSettings } from './maintenance';
import type { MaintenanceAnswer } from './machine-faults';

import { MachineState, ModuleState, PackageState, ResourceState, type LogLine } from './states';

export { MachineState, ModuleState, PackageState, ResourceState, type LogLine } from './states';

export interface ModuleRun {
  readonly name: string;
  /** Registry module id; empty for local modules. */
  readonly moduleId: string;
  /** The running version; empty for local modules. */
  readonly version: string;
  readonly state: number;
  readonly consecutiveFailures: number;
  readonly lastUpdated: number;
  readonly error: string;
  /** When the current start finishes. */
  readonly readyAt: number;
}

export interface ResourceRun {
  readonly namespace: string;
  readonly type: string;
  readonly subtype: string;
  readonly name: string;
  readonly model: string;
  /** A digest of the config entry's JSON text (empty for a remote's resource): a change reconfigures the resource. */
  readonly entry: string;
  readonly state: number;
  /** The last config revision that updated it. */
  readonly revision: string;
  readonly lastUpdated: number;
  readonly error: string;
  /** When the current configuration finishes (once its module is up). */
  readonly readyAt: number;
}

export interface PackageRun {
  /** Local name on the machine. */
  readonly name: string;
  /** Registry id `<organization id>/<name>`. */
  readonly packageId: string;
  readonly type: string;
  /** The version downloaded (the newest one's for `latest`), or as written when the registry lacks it. */
  readonly version: string;
  /** Whether the registry has that version. */
  readonly present: boolean;
  readonly state: number;
  readonly error: string;
  readonly lastUpdated: number;
  readonly totalBytes: number;
  /** When the current download finishes. */
  readonly readyAt: number;
}

/** What a machine part runs, as its GetMachineStatus reports it. */
export interface PartRun {
  readonly revision: string;
  readonly ingestedAt: number;
  readonly state: number;
  readonly modules: readonly ModuleRun[];
  readonly resources: readonly ResourceRun[];
  /** Absent in runs recorded before machines had packages. */
  readonly packages?: readonly PackageRun[];
  /** Scheduled jobs and their last outcome (absent when the config has none). */
  readonly jobs?: readonly JobRun[];
  /** Remotes and whether they are reached (absent when the config has none). */
  readonly remotes?: readonly RemoteRun[];
  /** A newer config revision the maintenance window holds back, and why. */
  readonly held?: { readonly revision: string; readonly reason: string };
  /** The maintenance settings of the running config (checked at the next new revision). */
  readonly maintenance?: MaintenanceSettings;
}

/** A remote as the machine reaches it. */
export interface RemoteRun {
  readonly name: string;
  readonly address: string;
  readonly reachable: boolean;
  readonly error: string;
}

/** Another machine's resource, as a remote gives it (its API and name on that machine). */
export interface RemoteResource {
  readonly namespace: string;
  readonly type: string;
  readonly subtype: string;
  readonly name: string;
}

/** A remote of the config: the resources of the machine at its address, or why it cannot be reached. */
export interface FetchedRemote {
  readonly name: string;
  readonly address: string;
  readonly prefix: string;
  readonly resources: readonly RemoteResource[];
  /** Why the machine at the address cannot be reached, when it cannot. */
  readonly unreachable?: string;
}

/** A package of the config as the machine finds it in the registry. */
export interface FetchedPackage {
  readonly name: string;
  readonly packageId: string;
  readonly type: string;
  /** The version to download, resolved; as written when `missing`. */
  readonly version: string;
  readonly totalBytes: number;
  /** Why the registry cannot give it, when it cannot. */
  readonly missing?: string;
}

/** The config as the machine reads it: modules with resolved versions, resource entries. */
/** What the data manager logs of each capture method a resource's builtin API has no collector for: it captures nothing for it. */
function captureFailureLogs(resources: FetchedConfig['resources']): LogLine[] {
  return resources.flatMap(({ kind, entry }) => {
    const name = typeof entry.name === 'string' ? entry.name : '';
    const api = normalApi(entry, kind);
    return checkCaptureMethods({ name, api, service_configs: entry.service_configs }, name).map((issue) => ({
      level: 'error' as const,
      logger: 'rdk.data_manager',
      message: `failed to find collector constructor for ${api}/${name}: ${issue.message}`,
    }));
  });
}

export interface FetchedConfig {
  readonly revision: string;
  /** `models`: what the module's version registers, when the registry tells (absent: not known until it runs). */
  readonly modules: readonly {
    readonly name: string;
    readonly moduleId: string;
    readonly version: string;
    readonly models?: readonly string[];
  }[];
  readonly resources: readonly { readonly kind: ResourceListName; readonly entry: Readonly<Record<string, unknown>> }[];
  /** Registry modules the machine cannot run (not in the registry, no version satisfies the policy). */
  readonly unresolved: readonly { readonly name: string; readonly reason: string }[];
  readonly packages?: readonly FetchedPackage[];
  readonly remotes?: readonly FetchedRemote[];
  readonly jobs?: readonly FetchedJob[];
  /** How many `processes` entries the config has (the machine server ignores them). */
  readonly processes?: number;
  readonly maintenance?: MaintenanceSettings;
}

export interface Timings {
  readonly moduleStartMs: number;
  readonly resourceConfigureMs: number;
}

export interface Health {
  crashes(moduleId: string, version: string): boolean;
  unhealthy(model: string): boolean;
  /** Whether a package fails to load once downloaded. */
  packageFails?(pkg: FetchedPackage): boolean;
  /** What the machine's maintenance sensor (`settings.sensorName`) answers at its key (open when not told). */
  maintenanceReading?(settings: MaintenanceSettings): MaintenanceAnswer;
  /** Whether a run of the job of that name fails. */
  jobFails?(job: string): boolean;
}

/** What a check-in needs of an entry: a digest of its JSON text and the packages its attributes use. */
interface EntryFacts {
  readonly digest: string;
  /** The package placeholders its attributes hold. */
  readonly packages: readonly { readonly ref: PackageReference; readonly text: string }[];
}

const facts = new WeakMap<object, EntryFacts>();

/** An entry's facts, found once per entry object (entries are never changed). */
function factsOf(entry: Readonly<Record<string, unknown>>): EntryFacts {
  let f = facts.get(entry);
  if (f === undefined) {
    const text = JSON.stringify(entry);
    f = { digest: crypto.createHash('sha1').update(text).digest('base64'), packages: packagesUsed(entry, text) };
    facts.set(entry, f);
  }
  return f;
}

/** Resource key: API and name. */
function resourceKey(r: Pick<ResourceRun, 'namespace' | 'type' | 'subtype' | 'name'>): string {
  return `${r.namespace}:${r.type}:${r.subtype}/${r.name}`;
}

function moduleKey(m: { name: string; moduleId: string; version: string }): string {
  return `${m.name}\0${m.moduleId}\0${m.version}`;
}

function packageKey(p: { name: string; packageId: string; version: string; present: boolean }): string {
  return `${p.name}\0${p.packageId}\0${p.version}\0${p.present ? 'present' : 'missing'}`;
}

/** The package placeholders a resource entry's attributes hold. */
function packagesUsed(entry: Readonly<Record<string, unknown>>, text: string): EntryFacts['packages'] {
  if (!text.includes('${packages.')) return [];
  return findPlaceholders(entry.attributes ?? {}, '').flatMap((p) => (p.package ? [{ ref: p.package, text: p.text }] : []));
}

/** Why a module entry after the first of its name or of its module id is never started, by its index. */
function duplicateModules(modules: FetchedConfig['modules']): ReadonlyMap<number, string> {
  const names = new Set<string>();
  const ids = new Set<string>();
  const out = new Map<number, string>();
  modules.forEach((m, i) => {
    if (names.has(m.name)) out.set(i, `duplicate module name ${JSON.stringify(m.name)}`);
    else if (m.moduleId !== '' && ids.has(m.moduleId)) out.set(i, `module ${JSON.stringify(m.moduleId)} is configured twice`);
    names.add(m.name);
    if (m.moduleId !== '') ids.add(m.moduleId);
  });
  return out;
}

/** The keys (API and name) that more than one resource entry has. */
function duplicatedResourceKeys(entries: FetchedConfig['resources']): ReadonlySet<string> {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const { kind, entry } of entries) {
    const key = resourceKey({ ...apiOf(kind, entry), name: typeof entry.name === 'string' ? entry.name : '' });
    if (seen.has(key)) twice.add(key);
    seen.add(key);
  }
  return twice;
}

/** The entry's API in its parts, from whatever form it is written in; undefined parts read as `unknown`. */
function apiOf(kind: ResourceListName, entry: Readonly<Record<string, unknown>>): { namespace: string; type: string; subtype: string } {
  const [namespace = 'unknown', type = 'unknown', subtype = 'unknown'] = normalApi(entry, kind).split(':');
  return { namespace, type, subtype };
}

/** The message the machine server gives for a model nothing registers. */
export function unregisteredModelError(api: string, model: string): string {
  return `unknown resource type: API ${JSON.stringify(api)} with model ${JSON.stringify(model)} not registered`;
}

/** The resources an entry depends on: `depends_on`, then those its builtin model's attributes name (with the field naming each). */
function dependenciesOf(
  entry: Readonly<Record<string, unknown>>,
  subtype: string,
  model: string,
): { readonly name: string; readonly field?: string }[] {
  const explicit = Array.isArray(entry.depends_on)
    ? entry.depends_on.filter((d): d is string => typeof d === 'string').map((name) => ({ name }))
    : [];
  const implicit = implicitDependencies(subtype, model, entry.attributes).filter((d) => !explicit.some((e) => e.name === d.name));
  return [...explicit, ...implicit.map((d) => ({ name: d.name, field: `attributes.${d.field}` }))];
}

/** The part's run after a check-in at `now` that fetched `config` (or restarts it when `restart`). */
export function checkIn(
  previous: PartRun | undefined,
  config: FetchedConfig,
  now: number,
  timings: Timings,
  health: Health,
  restart: boolean,
): { run: PartRun; logs: LogLine[] } {
  const logs: LogLine[] = [];
  const newRevision = previous !== undefined && !restart && previous.revision !== config.revision;
  // A running machine asks its maintenance sensor before taking a new revision (never at start).
  if (newRevision) {
    const hold = maintenanceHold(
      previous,
      config.maintenance,
      config.maintenance && health.maintenanceReading ? health.maintenanceReading(config.maintenance) : 'open',
      logs,
    );
    if (hold) {
      const logged = previous.held?.revision === config.revision && previous.held.reason === hold.reason;
      if (!logged) logs.push({ level: hold.level, logger: 'rdk.maintenance', message: hold.message(config.revision) });
      const jobs = previous.jobs ? stepJobs(previous.jobs, previous.jobs, previous.resources, now, health, logs) : undefined;
      return { run: { ...previous, ...(jobs ? { jobs } : {}), held: { revision: config.revision, reason: hold.reason } }, logs };
    }
  }
  const ingest = previous === undefined || restart || previous.revision !== config.revision;
  const base = restart ? undefined : previous;
  if (restart) logs.push({ level: 'info', logger: 'rdk', message: 'restarting the machine server as requested' });
  if (ingest) {
    logs.push({ level: 'info', logger: 'rdk.config', message: `config revision ${config.revision} received` });
    for (const u of config.unresolved)
      logs.push({ level: 'error', logger: 'rdk.modmanager', message: `module ${u.name} cannot be started: ${u.reason}` });
    logs.push(...captureFailureLogs(config.resources));
    if ((config.processes ?? 0) > 0) {
      logs.push({
        level: 'error',
        logger: 'rdk',
        message: `Processes have been deprecated and are no longer supported in viam-server versions v0.74.0+; the ${config.processes} process(es) of this config are ignored`,
      });
    }
  }
  const ingestedAt = ingest ? now : (previous as PartRun).ingestedAt;

  // The runs of each key in order: a later entry of the same name, id and version is a duplicate, never started.
  const before = new Map<string, ModuleRun[]>();
  for (const m of base?.modules ?? []) {
    const runs = before.get(moduleKey(m));
    if (runs) runs.push(m);
    else before.set(moduleKey(m), [m]);
  }
  const taken = new Map<string, number>();
  const twice = duplicateModules(config.modules);
  const modules = config.modules.map(({ models: _models, ...m }, i): ModuleRun => {
    const key = moduleKey(m);
    const nth = taken.get(key) ?? 0;
    taken.set(key, nth + 1);
    const was = before.get(key)?.[nth];
    const label = m.moduleId === '' ? m.name : `${m.name} (${m.moduleId}@${m.version})`;
    const duplicate = twice.get(i);
    if (duplicate !== undefined) {
      if (was?.state !== ModuleState.UNHEALTHY || was.error !== duplicate)
        logs.push({ level: 'error', logger: 'rdk.modmanager', message: `module ${label} cannot be started: ${duplicate}` });
      return {
        ...m,
        state: ModuleState.UNHEALTHY,
        consecutiveFailures: 0,
        lastUpdated: was?.lastUpdated ?? now,
        error: duplicate,
        readyAt: now,
      };
    }
    if (!was) {
      logs.push({ level: 'info', logger: 'rdk.modmanager', message: `starting module ${label}` });
      return {
        ...m,
        state: ModuleState.STARTING,
        consecutiveFailures: 0,
        lastUpdated: now,
        error: '',
        readyAt: now + timings.moduleStartMs,
      };
    }
    if (was.state !== ModuleState.STARTING && was.state !== ModuleState.UNHEALTHY) return was;
    if (now < was.readyAt) return was;
    if (m.moduleId !== '' && health.crashes(m.moduleId, m.version)) {
      const failures = was.consecutiveFailures + 1;
      const error = `module ${m.name} exited with code 1 on start (${failures} consecutive failure${failures === 1 ? '' : 's'}); restarting`;
      logs.push({
        level: 'error',
        logger: 'rdk.modmanager',
        message: `module ${label} crashed: exit code 1; restarting (${failures} consecutive failure${failures === 1 ? '' : 's'})`,
      });
      return { ...was, state: ModuleState.UNHEALTHY, consecutiveFailures: failures, lastUpdated: now, error, readyAt: now };
    }
    logs.push({ level: 'info', logger: 'rdk.modmanager', message: `module ${label} is ready` });
    return { ...was, state: ModuleState.READY, consecutiveFailures: 0, lastUpdated: now, error: '', readyAt: now };
  });
  for (const gone of base?.modules ?? []) {
    if (!config.modules.some((m) => moduleKey(m) === moduleKey(gone)))
      logs.push({ level: 'info', logger: 'rdk.modmanager', message: `stopped module ${gone.name}` });
  }

  const packages = stepPackages(base?.packages ?? [], config.packages ?? [], now, timings, health, logs);
  const packageByName = new Map(packages.map((p) => [p.name, p]));
  const packageTypes = new Map((config.packages ?? []).map((p) => [p.name, p.type]));
  const providerOf = moduleProviders(config.modules, modules);
  const previousResources = new Map((base?.resources ?? []).map((r) => [resourceKey(r), r]));
  const remotes = stepRemotes(base?.remotes ?? [], config.remotes ?? [], logs);
  const remoteResources = remoteResourceRuns(base?.resources ?? [], config.remotes ?? [], config.revision, now);
  const remoteByName = new Map<string, ResourceRun>();
  for (const r of remoteResources) {
    remoteByName.set(r.name, r);
    remoteByName.set(r.name.slice(r.name.indexOf(':') + 1), r);
  }

  // Each resource is stepped after the resources it depends on (by short name).
  const entries = config.resources;
  const indexByName = new Map<string, number>();
  entries.forEach(({ entry }, i) => {
    if (typeof entry.name === 'string' && !indexByName.has(entry.name)) indexByName.set(entry.name, i);
  });
  const stepped: (ResourceRun | undefined)[] = entries.map(() => undefined);
  const visiting = new Set<number>();
  const duplicated = duplicatedResourceKeys(entries);

  const stepAt = (i: number): ResourceRun => {
    const done = stepped[i];
    if (done) return done;
    visiting.add(i);
    const r = stepResource(i);
    visiting.delete(i);
    stepped[i] = r;
    return r;
  };

  const stepResource = (i: number): ResourceRun => {
    const { kind, entry } = entries[i] as FetchedConfig['resources'][number];
    const api = apiOf(kind, entry);
    const apiText = `${api.namespace}:${api.type}:${api.subtype}`;
    const name = typeof entry.name === 'string' ? entry.name : '';
    const model = normalModel(entry, kind);
    const { digest, packages: used } = factsOf(entry);
    const key = resourceKey({ ...api, name });
    const was = previousResources.get(key);
    const fresh: ResourceRun =
      was && was.entry === digest
        ? was
        : {
            ...api,
            name,
            model,
            entry: digest,
            state: ResourceState.CONFIGURING,
            revision: was?.revision ?? '',
            lastUpdated: now,
            error: '',
            readyAt: now + timings.resourceConfigureMs,
          };
    const label = `${apiText}/${name}`;
    // What the config's own rules say of the name: an invalid one, or one another resource of the API holds, is never built.
    // A service written without a name takes its API's default.
    const invalidName = kind === 'services' && name === '' ? undefined : checkResourceName(name, 'name')[0];
    if (invalidName) return settle(fresh, ResourceState.UNHEALTHY, invalidName.message, label);
    if (duplicated.has(key))
      return settle(
        fresh,
        ResourceState.UNHEALTHY,
        `duplicate resource name ${JSON.stringify(name)} for API ${apiText}: neither is reachable`,
        label,
      );
    const moduleId = moduleIdOfModel(model);
    const builtin = isBuiltinModel(model);
    const provider = moduleId === undefined || builtin ? undefined : providerOf(model);
    if ((builtin && !isKnownBuiltinModel(model)) || (!builtin && provider === undefined)) {
      return settle(fresh, ResourceState.UNHEALTHY, unregisteredModelError(apiText, model), label);
    }
    for (const { name: dep, field } of dependenciesOf(entry, api.subtype, model)) {
      const at = indexByName.get(dep);
      const named = field === undefined ? JSON.stringify(dep) : `${JSON.stringify(dep)} (named by ${field})`;
      if (at === i) return settle(fresh, ResourceState.UNHEALTHY, `dependency ${named}: a resource cannot depend on itself`, label);
      if (at !== undefined && visiting.has(at))
        return settle(fresh, ResourceState.UNHEALTHY, `circular dependency on ${JSON.stringify(dep)}`, label);
      const target = at !== undefined ? stepAt(at) : remoteByName.get(dep);
      if (target === undefined)
        return settle(fresh, ResourceState.UNHEALTHY, `dependency ${named} not found: no resource or remote resource of that name`, label);
      if (target.state === ResourceState.UNHEALTHY)
        return settle(fresh, ResourceState.UNHEALTHY, `dependency ${named} is not available: ${target.error}`, label);
      if (target.state !== ResourceState.READY) {
        return fresh.state === ResourceState.READY && fresh.revision === config.revision
          ? fresh
          : { ...fresh, state: ResourceState.CONFIGURING, readyAt: Math.max(fresh.readyAt, target.readyAt + timings.resourceConfigureMs) };
      }
    }
    // The machine server leaves a placeholder it cannot replace as written: what reads it fails.
    for (const { ref, text } of used) {
      const unreplaced = placeholderReplacementError(ref, text, packageTypes);
      if (unreplaced !== undefined) return settle(fresh, ResourceState.UNHEALTHY, `attributes: ${unreplaced}`, label);
    }
    for (const { ref } of used) {
      const name = ref.name;
      const pkg = packageByName.get(name);
      if (pkg?.state === PackageState.FAILED)
        return settle(fresh, ResourceState.UNHEALTHY, `package ${name} is not available: ${pkg.error}`, label);
      if (pkg?.state === PackageState.DOWNLOADING) {
        return fresh.state === ResourceState.CONFIGURING
          ? { ...fresh, readyAt: Math.max(fresh.readyAt, pkg.readyAt + timings.resourceConfigureMs) }
          : fresh;
      }
    }
    if (provider && provider.state !== ModuleState.READY) {
      if (provider.state === ModuleState.UNHEALTHY)
        return settle(fresh, ResourceState.UNHEALTHY, `module ${provider.name} is not running`, label);
      return fresh.state === ResourceState.CONFIGURING
        ? { ...fresh, readyAt: Math.max(fresh.readyAt, provider.readyAt + timings.resourceConfigureMs) }
        : fresh;
    }
    if (fresh.state === ResourceState.READY && fresh.revision === config.revision) return fresh;
    if (fresh.state === ResourceState.CONFIGURING && now < fresh.readyAt) return fresh;
    if (health.unhealthy(model))
      return settle(fresh, ResourceState.UNHEALTHY, `resource ${name} of model ${model} did not become ready`, label);
    if (fresh.state !== ResourceState.READY)
      logs.push({ level: 'info', logger: 'rdk.resource_manager', message: `resource ${label} (${model}) is ready` });
    return {
      ...fresh,
      state: ResourceState.READY,
      revision: config.revision,
      lastUpdated: fresh.state === ResourceState.READY ? fresh.lastUpdated : now,
      error: '',
    };
  };

  /** A resource that cannot become ready; logged once per change of its error. */
  function settle(r: ResourceRun, state: number, error: string, label: string): ResourceRun {
    if (r.state === state && r.error === error) return r;
    logs.push({ level: 'error', logger: 'rdk.resource_manager', message: `resource ${label} failed to configure: ${error}` });
    return { ...r, state, error, lastUpdated: now };
  }

  const resources = [...entries.map((_, i) => stepAt(i)), ...remoteResources];
  const jobs = config.jobs && config.jobs.length > 0 ? stepJobs(base?.jobs ?? [], config.jobs, resources, now, health, logs) : undefined;

  const settling =
    modules.some((m) => m.state === ModuleState.STARTING) ||
    resources.some((r) => r.state === ResourceState.CONFIGURING) ||
    packages.some((p) => p.state === PackageState.DOWNLOADING);
  const state = settling ? MachineState.INITIALIZING : MachineState.RUNNING;
  return {
    run: {
      revision: config.revision,
      ingestedAt,
      state,
      modules,
      resources,
      ...(packages.length > 0 ? { packages } : {}),
      ...(jobs ? { jobs } : {}),
      ...(remotes.length > 0 ? { remotes } : {}),
      ...(config.maintenance ? { maintenance: config.maintenance } : {}),
    },
    logs,
  };
}

/**
 * The module providing a model: one whose version registers it; else the registry module
 * whose id is the model's first two parts; else a module whose models are not known (a local
 * module, or one the registry lists no models for) in the model's namespace, or any local one.
 */
function moduleProviders(fetched: FetchedConfig['modules'], runs: readonly ModuleRun[]): (model: string) => ModuleRun | undefined {
  const exact = new Map<string, ModuleRun>();
  const byId = new Map<string, ModuleRun>();
  const unknown: { run: ModuleRun; namespace: string }[] = [];
  fetched.forEach((m, i) => {
    const run = runs[i] as ModuleRun;
    for (const model of m.models ?? []) if (!exact.has(model)) exact.set(model, run);
    if (m.moduleId !== '' && !byId.has(m.moduleId)) byId.set(m.moduleId, run);
    if (m.models === undefined || m.models.length === 0)
      unknown.push({ run, namespace: m.moduleId === '' ? '' : (m.moduleId.split(':')[0] as string) });
  });
  return (model) => {
    const found = exact.get(model) ?? byId.get(moduleIdOfModel(model) ?? '');
    if (found) return found;
    const namespace = model.split(':')[0];
    return (unknown.find((u) => u.namespace === namespace) ?? unknown.find((u) => u.namespace === ''))?.run;
  };
}

/** Remotes after a check-in: a change of reach is logged (an unreachable remote takes its resources away, not the machine). */
function stepRemotes(before: readonly RemoteRun[], fetched: readonly FetchedRemote[], logs: LogLine[]): RemoteRun[] {
  const previous = new Map(before.map((r) => [r.name, r]));
  return fetched.map((f): RemoteRun => {
    const was = previous.get(f.name);
    const error = f.unreachable ?? '';
    const reachable = f.unreachable === undefined;
    if (was && was.reachable === reachable && was.error === error && was.address === f.address) return was;
    if (reachable) logs.push({ level: 'info', logger: 'rdk.remotes', message: `connected to remote ${f.name} at ${f.address}` });
    else
      logs.push({
        level: 'warn',
        logger: 'rdk.remotes',
        message: `remote ${f.name} at ${f.address} is not reachable, its resources are unavailable: ${error}`,
      });
    return { name: f.name, address: f.address, reachable, error };
  });
}

/** The resources reachable remotes give, named `<remote>:<prefix><name>`, ready at this revision. */
function remoteResourceRuns(
  before: readonly ResourceRun[],
  fetched: readonly FetchedRemote[],
  revision: string,
  now: number,
): ResourceRun[] {
  const previous = new Map(before.filter((r) => r.entry === '').map((r) => [resourceKey(r), r]));
  return fetched.flatMap((f) =>
    f.unreachable !== undefined
      ? []
      : f.resources.map((res): ResourceRun => {
          const name = `${f.name}:${f.prefix}${res.name}`;
          const was = previous.get(resourceKey({ ...res, name }));
          if (was && was.revision === revision) return was;
          return {
            namespace: res.namespace,
            type: res.type,
            subtype: res.subtype,
            name,
            model: '',
            entry: '',
            state: ResourceState.READY,
            revision,
            lastUpdated: was?.lastUpdated ?? now,
            error: '',
            readyAt: now,
          };
        }),
  );
}

/** The packages after a check-in: downloads start, finish (READY or FAILED), and packages the registry lacks fail. */
function stepPackages(
  before: readonly PackageRun[],
  fetched: readonly FetchedPackage[],
  now: number,
  timings: Timings,
  health: Health,
  logs: LogLine[],
): PackageRun[] {
  const previous = new Map(before.map((p) => [packageKey(p), p]));
  const runs = fetched.map((p): PackageRun => {
    const present = p.missing === undefined;
    const was = previous.get(packageKey({ ...p, present }));
    const label = `${p.name} (${p.packageId}@${p.version})`;
    if (!present) {
      if (was) return was;
      const error = p.missing as string;
      logs.push({ level: 'error', logger: 'rdk.package_manager', message: `package ${label} cannot be downloaded: ${error}` });
      return {
        name: p.name,
        packageId: p.packageId,
        type: p.type,
        version: p.version,
        present,
        state: PackageState.FAILED,
        error,
        lastUpdated: now,
        totalBytes: 0,
        readyAt: now,
      };
    }
    if (!was) {
      logs.push({ level: 'info', logger: 'rdk.package_manager', message: `downloading package ${label}` });
      return {
        name: p.name,
        packageId: p.packageId,
        type: p.type,
        version: p.version,
        present,
        state: PackageState.DOWNLOADING,
        error: '',
        lastUpdated: now,
        totalBytes: p.totalBytes,
        readyAt: now + timings.moduleStartMs,
      };
    }
    if (was.state !== PackageState.DOWNLOADING || now < was.readyAt) return was;
    if (health.packageFails?.(p)) {
      const error = `package ${p.name} failed to load: its contents could not be unpacked`;
      logs.push({
        level: 'error',
        logger: 'rdk.package_manager',
        message: `package ${label} failed to load: its contents could not be unpacked`,
      });
      return { ...was, state: PackageState.FAILED, error, lastUpdated: now };
    }
    logs.push({ level: 'info', logger: 'rdk.package_manager', message: `package ${label} is ready` });
    return { ...was, state: PackageState.READY, error: '', lastUpdated: now };
  });
  for (const gone of before) {
    if (!runs.some((r) => r.name === gone.name && r.version === gone.version))
      logs.push({ level: 'info', logger: 'rdk.package_manager', message: `removed package ${gone.name}` });
  }
  return runs;
}

/** Healthy: running the given revision, every module ready and every resource ready at that revision. */
export function isHealthy(run: PartRun, revision: string): boolean {
  return (
    run.revision === revision &&
    run.state === MachineState.RUNNING &&
    run.modules.every((m) => m.state === ModuleState.READY) &&
    run.resources.every((r) => r.state === ResourceState.READY && r.revision === revision) &&
    (run.packages ?? []).every((p) => p.state === PackageState.READY)
  );
}
