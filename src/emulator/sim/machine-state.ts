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
 */
import { CONFIG_SECTION_ENTRY, type ResourceListName } from '../../domain/config';
import { isBuiltinModel, moduleIdOfModel, parseApiTriplet } from '../../domain/triplet';

/** viam.robot.v1 ModuleStatus.State numbers. */
export const ModuleState = { PENDING: 1, STARTING: 2, READY: 3, UNHEALTHY: 4 } as const;
/** viam.robot.v1 ResourceStatus.State numbers. */
export const ResourceState = { CONFIGURING: 2, READY: 3, UNHEALTHY: 5 } as const;
/** viam.robot.v1 GetMachineStatusResponse.State numbers. */
export const MachineState = { INITIALIZING: 1, RUNNING: 2 } as const;

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
  /** The config entry as JSON text: a change reconfigures the resource. */
  readonly entry: string;
  readonly state: number;
  /** The last config revision that updated it. */
  readonly revision: string;
  readonly lastUpdated: number;
  readonly error: string;
  /** When the current configuration finishes (once its module is up). */
  readonly readyAt: number;
}

/** What a machine part runs, as its GetMachineStatus reports it. */
export interface PartRun {
  readonly revision: string;
  readonly ingestedAt: number;
  readonly state: number;
  readonly modules: readonly ModuleRun[];
  readonly resources: readonly ResourceRun[];
}

export interface LogLine {
  readonly level: 'info' | 'warn' | 'error';
  readonly logger: string;
  readonly message: string;
}

/** The config as the machine reads it: modules with resolved versions, resource entries. */
export interface FetchedConfig {
  readonly revision: string;
  readonly modules: readonly { readonly name: string; readonly moduleId: string; readonly version: string }[];
  readonly resources: readonly { readonly kind: ResourceListName; readonly entry: Readonly<Record<string, unknown>> }[];
  /** Registry modules the machine cannot run (not in the registry, no version satisfies the policy). */
  readonly unresolved: readonly { readonly name: string; readonly reason: string }[];
}

export interface Timings {
  readonly moduleStartMs: number;
  readonly resourceConfigureMs: number;
}

export interface Health {
  crashes(moduleId: string, version: string): boolean;
  unhealthy(model: string): boolean;
}

/** Resource key: API and name. */
function resourceKey(r: Pick<ResourceRun, 'namespace' | 'type' | 'subtype' | 'name'>): string {
  return `${r.namespace}:${r.type}:${r.subtype}/${r.name}`;
}

function moduleKey(m: { name: string; moduleId: string; version: string }): string {
  return `${m.name}\0${m.moduleId}\0${m.version}`;
}

function apiOf(kind: ResourceListName, entry: Readonly<Record<string, unknown>>): { namespace: string; type: string; subtype: string } {
  const api = typeof entry.api === 'string' ? parseApiTriplet(entry.api) : undefined;
  if (api) return { namespace: api.namespace, type: api.type, subtype: api.name };
  const subtype = typeof entry.type === 'string' ? entry.type : 'unknown';
  const namespace = typeof entry.namespace === 'string' ? entry.namespace : 'rdk';
  return { namespace, type: CONFIG_SECTION_ENTRY[kind], subtype };
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
  const ingest = previous === undefined || restart || previous.revision !== config.revision;
  const base = restart ? undefined : previous;
  if (restart) logs.push({ level: 'info', logger: 'rdk', message: 'restarting the machine server as requested' });
  if (ingest) {
    logs.push({ level: 'info', logger: 'rdk.config', message: `config revision ${config.revision} received` });
    for (const u of config.unresolved) logs.push({ level: 'error', logger: 'rdk.modmanager', message: `module ${u.name} cannot be started: ${u.reason}` });
  }
  const ingestedAt = ingest ? now : (previous as PartRun).ingestedAt;

  const before = new Map((base?.modules ?? []).map((m) => [moduleKey(m), m]));
  const modules = config.modules.map((m): ModuleRun => {
    const was = before.get(moduleKey(m));
    const label = m.moduleId === '' ? m.name : `${m.name} (${m.moduleId}@${m.version})`;
    if (!was) {
      logs.push({ level: 'info', logger: 'rdk.modmanager', message: `starting module ${label}` });
      return { ...m, state: ModuleState.STARTING, consecutiveFailures: 0, lastUpdated: now, error: '', readyAt: now + timings.moduleStartMs };
    }
    if (was.state !== ModuleState.STARTING && was.state !== ModuleState.UNHEALTHY) return was;
    if (now < was.readyAt) return was;
    if (m.moduleId !== '' && health.crashes(m.moduleId, m.version)) {
      const failures = was.consecutiveFailures + 1;
      const error = `module ${m.name} exited with code 1 on start (${failures} consecutive failure${failures === 1 ? '' : 's'}); restarting`;
      logs.push({ level: 'error', logger: 'rdk.modmanager', message: `module ${label} crashed: exit code 1; restarting (${failures} consecutive failure${failures === 1 ? '' : 's'})` });
      return { ...was, state: ModuleState.UNHEALTHY, consecutiveFailures: failures, lastUpdated: now, error, readyAt: now };
    }
    logs.push({ level: 'info', logger: 'rdk.modmanager', message: `module ${label} is ready` });
    return { ...was, state: ModuleState.READY, consecutiveFailures: 0, lastUpdated: now, error: '', readyAt: now };
  });
  for (const gone of base?.modules ?? []) {
    if (!config.modules.some((m) => moduleKey(m) === moduleKey(gone))) logs.push({ level: 'info', logger: 'rdk.modmanager', message: `stopped module ${gone.name}` });
  }

  const moduleById = new Map(modules.filter((m) => m.moduleId !== '').map((m) => [m.moduleId, m]));
  const previousResources = new Map((base?.resources ?? []).map((r) => [resourceKey(r), r]));
  const resources = config.resources.map(({ kind, entry }): ResourceRun => {
    const api = apiOf(kind, entry);
    const name = typeof entry.name === 'string' ? entry.name : '';
    const model = typeof entry.model === 'string' ? entry.model : '';
    const text = JSON.stringify(entry);
    const key = resourceKey({ ...api, name });
    const was = previousResources.get(key);
    const fresh: ResourceRun =
      was && was.entry === text
        ? was
        : { ...api, name, model, entry: text, state: ResourceState.CONFIGURING, revision: was?.revision ?? '', lastUpdated: now, error: '', readyAt: now + timings.resourceConfigureMs };
    const moduleId = moduleIdOfModel(model);
    const provider = moduleId === undefined || isBuiltinModel(model) ? undefined : moduleById.get(moduleId);
    const label = `${api.namespace}:${api.type}:${api.subtype}/${name}`;
    if (moduleId !== undefined && !isBuiltinModel(model) && provider === undefined) {
      return settle(fresh, ResourceState.UNHEALTHY, `no running module provides model ${model}`, label);
    }
    if (provider && provider.state !== ModuleState.READY) {
      if (provider.state === ModuleState.UNHEALTHY) return settle(fresh, ResourceState.UNHEALTHY, `module ${provider.name} is not running`, label);
      return fresh.state === ResourceState.CONFIGURING ? { ...fresh, readyAt: Math.max(fresh.readyAt, provider.readyAt + timings.resourceConfigureMs) } : fresh;
    }
    if (fresh.state === ResourceState.READY && fresh.revision === config.revision) return fresh;
    if (fresh.state === ResourceState.CONFIGURING && now < fresh.readyAt) return fresh;
    if (health.unhealthy(model)) return settle(fresh, ResourceState.UNHEALTHY, `resource ${name} of model ${model} did not become ready`, label);
    if (fresh.state !== ResourceState.READY) logs.push({ level: 'info', logger: 'rdk.resource_manager', message: `resource ${label} (${model}) is ready` });
    return { ...fresh, state: ResourceState.READY, revision: config.revision, lastUpdated: fresh.state === ResourceState.READY ? fresh.lastUpdated : now, error: '' };
  });

  /** A resource that cannot become ready; logged once per change of its error. */
  function settle(r: ResourceRun, state: number, error: string, label: string): ResourceRun {
    if (r.state === state && r.error === error) return r;
    logs.push({ level: 'error', logger: 'rdk.resource_manager', message: `resource ${label} failed to configure: ${error}` });
    return { ...r, state, error, lastUpdated: now };
  }

  const settling = modules.some((m) => m.state === ModuleState.STARTING) || resources.some((r) => r.state === ResourceState.CONFIGURING);
  const state = settling ? MachineState.INITIALIZING : MachineState.RUNNING;
  return { run: { revision: config.revision, ingestedAt, state, modules, resources }, logs };
}

/** Healthy: running the given revision, every module ready and every resource ready at that revision. */
export function isHealthy(run: PartRun, revision: string): boolean {
  return (
    run.revision === revision &&
    run.state === MachineState.RUNNING &&
    run.modules.every((m) => m.state === ModuleState.READY) &&
    run.resources.every((r) => r.state === ResourceState.READY && r.revision === revision)
  );
}
