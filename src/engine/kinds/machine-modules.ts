/**
 * A machine's registry modules against the registry: what each version policy runs, the
 * version a module without one is pinned to at its first apply, and what planning notes of
 * them. The registry is read once per run for each module.
 */
import { childPath } from '../../domain/json-path';
import type { RegistryModule } from '../../api/client';
import {
  acknowledgmentHint,
  describeVersionPolicy,
  formatVersionPolicy,
  isCertainFailure,
  MODULE_VIAM_SERVER_CODE,
  newestVersion,
  pinnedVersionFindings,
  RESOURCE_LISTS,
  moduleVersionToRun,
  resolvePolicyOnMachine,
  tryParseVersionPolicy,
  UNMATCHED_ACKNOWLEDGMENT,
  type Acknowledgment,
  type ModuleVersion,
  type SkippedVersion,
  type VersionPolicy,
  whySkipped,
} from '../../domain';
import { isObject, type JsonObject, type JsonValue } from '../json';
import type { KindContext, PlanNote, PlanProblem } from '../kind';
import type { StateEntry } from '../state/schema';
import { unlessNotFound } from './not-found';

function registryModule(ctx: KindContext, moduleId: string): Promise<RegistryModule | undefined> {
  return ctx.memo(`registry-module:${moduleId}`, () => unlessNotFound(() => ctx.client.appClient.getModule(moduleId)));
}

/** The module's versions with what the registry item says of each (deprecated, oldest viam-server). */
async function versionsWithStatus(ctx: KindContext, module: RegistryModule): Promise<readonly ModuleVersion[]> {
  const id = module.moduleId;
  const item = await ctx.memo(`registry-item:${id}`, () => unlessNotFound(() => ctx.client.appClient.getRegistryItem(id)));
  const statuses = new Map((item?.moduleVersions ?? []).map((v) => [v.version, v]));
  return module.versions.map((v) => {
    const s = statuses.get(v.version);
    return {
      ...v,
      ...(s?.deprecated === undefined ? {} : { deprecated: s.deprecated }),
      ...(s?.minViamServerVersion === undefined ? {} : { minViamServerVersion: s.minViamServerVersion }),
    };
  });
}

/** The viam-server version a part reports (undefined: not known, or no part yet), one read of the organization's summaries per run. */
export async function partViamServer(ctx: KindContext, partId: string | undefined): Promise<string | undefined> {
  if (!partId) return undefined;
  const versions = await ctx.memo(`viam-server-versions:${ctx.organizationId}`, () =>
    ctx.client.appClient.viamServerVersions(ctx.organizationId).catch(() => new Map<string, string>()),
  );
  return versions.get(partId);
}

/** What the registry says of a module, derived once per run: version strings, newest overall and newest release. */
interface RegistryFacts {
  readonly module: RegistryModule;
  /** The versions, ascending, with their deprecation and oldest viam-server. */
  readonly statuses: readonly ModuleVersion[];
  readonly versions: readonly string[];
  readonly latest: string | undefined;
  readonly latestRelease: string | undefined;
  /** What each version policy text comes to, filled as policies are met (see {@link policyFacts}). */
  readonly policies: Map<string, PolicyFacts>;
}

/** What one version policy text of a module comes to against the registry. */
interface PolicyFacts {
  /** The parsed policy; undefined when the text is not one. */
  readonly policy: VersionPolicy | undefined;
  /** The version it runs; undefined when nothing qualifies. */
  readonly resolved: string | undefined;
  /** Models the resolved version lists (empty when it lists none). */
  readonly provided: ReadonlySet<string>;
  /** The plan's note on the policy: what it runs, the registry's latest, whether it updates. */
  readonly summary: string | undefined;
  /** Newer versions the policy admits but skips on this machine, and why. */
  readonly skipped: readonly SkippedVersion[];
}

function registryFacts(ctx: KindContext, moduleId: string): Promise<RegistryFacts | undefined> {
  return ctx.memo(`registry-facts:${moduleId}`, async () => {
    const module = await registryModule(ctx, moduleId);
    if (!module) return undefined;
    const versions = module.versions.map((v) => v.version);
    return {
      module,
      statuses: await versionsWithStatus(ctx, module),
      versions,
      latest: newestVersion(versions, { includePrerelease: true }),
      latestRelease: newestVersion(versions),
      policies: new Map(),
    };
  });
}

/**
 * What `policyText` comes to for the module on a machine running viam-server `server`
 * (undefined: not known), worked out once per run for each module, text and server.
 */
function policyFacts(facts: RegistryFacts, policyText: string, server?: string): PolicyFacts {
  const key = `${policyText}\u0000${server ?? ''}`;
  const known = facts.policies.get(key);
  if (known) return known;
  const policy = tryParseVersionPolicy(policyText);
  const onMachine = policy ? resolvePolicyOnMachine(policy, facts.statuses, server) : undefined;
  const resolved = onMachine?.resolved?.version;
  const provided = new Set((facts.module.versions.find((v) => v.version === resolved)?.models ?? []).map((m) => m.model));
  const { latest, latestRelease } = facts;
  const updates =
    policy?.kind === 'patch'
      ? 'never updates automatically'
      : 'updates automatically (restarting the module) when the registry publishes a newer admitted version';
  const summary =
    policy && resolved
      ? `policy ${formatVersionPolicy(policy)} (${describeVersionPolicy(policy)}): runs ${resolved}; registry latest ${latest ?? '-'}${latestRelease && latestRelease !== latest ? ` (release ${latestRelease})` : ''}; ${updates}`
      : undefined;
  const found: PolicyFacts = { policy, resolved, provided, summary, skipped: onMachine?.skipped ?? [] };
  facts.policies.set(key, found);
  return found;
}

/**
 * The registry facts a run's memo has settled, by module id, keyed by the run's memo: once
 * a module's facts are read, later machines take them without a promise per module.
 */
const settledFacts = new WeakMap<KindContext['memo'], Map<string, RegistryFacts | undefined>>();

/** Registry facts of the given module ids (read, or taken from the run's memo, together; awaited once), looked up by id. */
async function registryFactsOf(ctx: KindContext, moduleIds: readonly string[]): Promise<(moduleId: string) => RegistryFacts | undefined> {
  const settled = settledFacts.get(ctx.memo);
  if (settled && moduleIds.every((id) => settled.has(id)))
    return (moduleId) => (moduleIds.includes(moduleId) ? settled.get(moduleId) : undefined);
  // An id given twice is one memo entry: the same promise twice.
  const facts = await Promise.all(moduleIds.map((id) => registryFacts(ctx, id)));
  const known = settledFacts.get(ctx.memo) ?? new Map<string, RegistryFacts | undefined>();
  settledFacts.set(ctx.memo, known);
  moduleIds.forEach((id, i) => known.set(id, facts[i]));
  return (moduleId) => {
    const i = moduleIds.indexOf(moduleId);
    return i < 0 ? undefined : facts[i];
  };
}

/** The module id of a registry module entry (undefined for a local module or an entry that names none). */
function registryModuleId(m: unknown): string | undefined {
  return isObject(m) && m.type !== 'local' && typeof m.module_id === 'string' ? m.module_id : undefined;
}

/** The version each registry module of a config view runs, by module name (absent when the registry cannot tell). */
export async function runningVersions(ctx: KindContext, config: JsonValue | undefined, server?: string): Promise<JsonObject> {
  const modules = modulesOfView(config);
  const ids: string[] = [];
  for (const m of Object.values(modules)) {
    const id = registryModuleId(m);
    if (id !== undefined) ids.push(id);
  }
  if (ids.length === 0) return {};
  return runningFrom(modules, await registryFactsOf(ctx, ids), server);
}

function modulesOfView(config: JsonValue | undefined): JsonObject {
  return isObject(config) && isObject(config.modules) ? config.modules : {};
}

/** The version each registry module of a view's modules runs, from the registry facts of their ids. */
function runningFrom(
  modules: JsonObject,
  factsOf: (moduleId: string) => RegistryFacts | undefined,
  server: string | undefined,
): JsonObject {
  const running: JsonObject = {};
  for (const [name, m] of Object.entries(modules)) {
    const id = registryModuleId(m);
    const facts = id === undefined ? undefined : factsOf(id);
    const policyText = isObject(m) ? m.version : undefined;
    const version =
      facts && typeof policyText === 'string' && policyText !== '' ? policyFacts(facts, policyText, server).resolved : undefined;
    if (version) running[name] = version;
  }
  return running;
}

/** The module pins a machine's (or part's) state entry keeps, by module name. */
export function pinsOf(entry: StateEntry | undefined): Record<string, string> {
  const pins = entry?.private.pins;
  const out: Record<string, string> = {};
  if (isObject(pins)) for (const [k, v] of Object.entries(pins)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** The version a registry module of a machine runs (moduleVersionToRun), with the pin its state entry keeps. */
export function runningModuleVersion(
  module: { readonly name: string; readonly version?: string },
  entry: StateEntry | undefined,
  versions: readonly string[],
): string | undefined {
  return moduleVersionToRun(module.version, pinsOf(entry)[module.name], versions);
}

/** A config's modules as they will run (registry modules without a version pinned), the pins they take, what planning found. */
export interface PinnedModules {
  readonly modules: unknown[];
  readonly pins: Record<string, string>;
  readonly notes: PlanNote[];
  readonly problems: PlanProblem[];
  /** The models the registry lists for the versions the modules will run. */
  readonly providedModels: ReadonlySet<string>;
  /**
   * What {@link runningVersions} finds for a view of these modules (on the same machine), from
   * the registry facts read for them; undefined when the view names a registry module they do not.
   */
  readonly runningIn: (view: JsonValue | undefined) => JsonObject | undefined;
}

/** One module entry as it will run, the pin it takes and what planning found of it. */
interface PinnedModule {
  readonly module: unknown;
  readonly pin?: { readonly name: string; readonly version: string };
  readonly notes: PlanNote[];
  readonly problems: PlanProblem[];
  /** Paths of viam-server findings an acknowledgment matched or could have (the module has one). */
  readonly acknowledgedPaths?: readonly string[];
}

/**
 * The config's modules checked against the registry: a registry module without a version
 * is pinned (to the pin state keeps, else the newest release); one with a policy is noted
 * with what it runs. Findings come in the order of the modules.
 */
export async function pinModules(
  ctx: KindContext,
  config: Readonly<Record<string, unknown>>,
  priorPins: Readonly<Record<string, string>>,
  machine: MachineFacts = {},
): Promise<PinnedModules> {
  const modules: unknown[] = Array.isArray(config.modules) ? config.modules : [];
  const ids = modules.map(registryModuleId).filter((id): id is string => id !== undefined);
  const factsOf = ids.length === 0 ? () => undefined : await registryFactsOf(ctx, ids);
  const each = modules.map((raw) => pinModule(config, raw, factsOf, priorPins, machine));
  const runningIn = (view: JsonValue | undefined): JsonObject | undefined => {
    const viewed = modulesOfView(view);
    for (const m of Object.values(viewed)) {
      const id = registryModuleId(m);
      if (id !== undefined && !ids.includes(id)) return undefined;
    }
    return runningFrom(viewed, factsOf, machine.server);
  };
  const pins: Record<string, string> = {};
  for (const m of each) if (m.pin) pins[m.pin.name] = m.pin.version;
  return {
    modules: each.map((m) => m.module),
    pins,
    notes: [...each.flatMap((m) => m.notes), ...unmatchedServerAcknowledgments(machine, each)],
    problems: each.flatMap((m) => m.problems),
    providedModels: providedModels(each, factsOf, machine.server),
    runningIn,
  };
}

/** The models the registry lists for the version each module will run (its pin, or what its policy resolves to). */
function providedModels(
  each: readonly PinnedModule[],
  factsOf: (moduleId: string) => RegistryFacts | undefined,
  server: string | undefined,
): ReadonlySet<string> {
  const models = new Set<string>();
  for (const { module } of each) {
    if (!isObject(module) || typeof module.module_id !== 'string' || typeof module.version !== 'string') continue;
    const facts = factsOf(module.module_id);
    if (facts) for (const model of policyFacts(facts, module.version, server).provided) models.add(model);
  }
  return models;
}

/** What planning knows of the machine a config is for: the viam-server it reports, the acknowledgments its code gives. */
export interface MachineFacts {
  readonly server?: string;
  readonly acknowledged?: readonly Acknowledgment[];
}

/** The acknowledged path of a module's version finding, as code names it. */
function acknowledgedPath(moduleName: string): string {
  return childPath(childPath('modules', moduleName), 'version');
}

/** Acknowledgments of a viam-server finding that no module of the config has. */
function unmatchedServerAcknowledgments(machine: MachineFacts, each: readonly PinnedModule[]): PlanNote[] {
  const found = new Set(each.flatMap((m) => m.acknowledgedPaths ?? []));
  return (machine.acknowledged ?? [])
    .filter((a) => a.code === MODULE_VIAM_SERVER_CODE && !found.has(a.path))
    .map((a) => ({
      level: 'warning' as const,
      path: childPath('acknowledged', a.path),
      message: `acknowledgment of ${a.code} at ${a.path} matches no finding of this machine (${UNMATCHED_ACKNOWLEDGMENT}); remove it: the machine no longer fails there`,
    }));
}

function unchanged(module: unknown, notes: PlanNote[] = []): PinnedModule {
  return { module, notes, problems: [] };
}

function modulePath(moduleName: string): string {
  return childPath('config.modules', moduleName);
}

/** One module entry against the registry facts of the config's modules (read beforehand, once for all). */
function pinModule(
  config: Readonly<Record<string, unknown>>,
  raw: unknown,
  factsOf: (moduleId: string) => RegistryFacts | undefined,
  priorPins: Readonly<Record<string, string>>,
  machine: MachineFacts,
): PinnedModule {
  if (!isObject(raw) || raw.type === 'local' || typeof raw.module_id !== 'string') return unchanged(raw);
  const moduleId = raw.module_id;
  const moduleName = typeof raw.name === 'string' ? raw.name : moduleId;
  const facts = factsOf(moduleId);
  if (!facts) return unchanged(raw, [notInRegistry(moduleId, moduleName)]);
  if (typeof raw.version !== 'string' || raw.version === '') {
    // A first pin takes the newest release the machine may run, as a policy would.
    const runnable = facts.statuses.filter((v) => whySkipped(v, machine.server) === undefined).map((v) => v.version);
    return pinnedToRelease(raw, moduleId, moduleName, runnable, priorPins[moduleName]);
  }
  const policyText = raw.version;
  const notes = policyNotes(config, moduleId, moduleName, policyText, facts, machine.server);
  const { policy, resolved } = policyFacts(facts, policyText, machine.server);
  if (policy?.kind !== 'patch') return unchanged(raw, notes);
  const pinned = facts.statuses.find((v) => v.version === resolved);
  if (!pinned) return unchanged(raw, notes);
  const found = pinnedFindings(moduleId, moduleName, pinned, machine);
  return { ...found, module: raw, notes: [...notes, ...found.notes] };
}

/**
 * A module pinned to one version: deprecated, a warning (it runs); needing a newer
 * viam-server than the machine's, a problem unless code acknowledges it (then a warning
 * quoting the reason); needing one while the machine's version is not known, a warning.
 */
function pinnedFindings(moduleId: string, moduleName: string, v: ModuleVersion, machine: MachineFacts): Omit<PinnedModule, 'module'> {
  const path = childPath(modulePath(moduleName), 'version');
  const ackPath = acknowledgedPath(moduleName);
  const notes: PlanNote[] = [];
  const problems: PlanProblem[] = [];
  for (const issue of pinnedVersionFindings(moduleId, v, machine.server, path)) {
    if (!isCertainFailure(issue)) {
      notes.push({ level: 'warning', path, message: issue.hint ? `${issue.message}; ${issue.hint}` : issue.message });
      continue;
    }
    const ack = machine.acknowledged?.find((a) => a.code === issue.code && a.path === ackPath);
    if (ack) notes.push({ level: 'warning', path, message: `${issue.message} (acknowledged: ${ack.reason})` });
    else problems.push({ path, message: issue.message, hint: `${issue.hint ?? ''}; ${acknowledgmentHint(issue.code, ackPath)}` });
  }
  return { notes, problems, acknowledgedPaths: v.minViamServerVersion ? [ackPath] : [] };
}

/** The service stores a config naming a module the registry lacks; the machine then fails to start it. */
function notInRegistry(moduleId: string, moduleName: string): PlanNote {
  return {
    level: 'warning',
    path: modulePath(moduleName),
    message: `module ${moduleId} is not in the registry: the machine will not be able to start it (check module_id, or publish the module first)`,
  };
}

/** A module without a version runs the pin state keeps, else the newest release (noted at this first apply). */
function pinnedToRelease(
  raw: JsonObject,
  moduleId: string,
  moduleName: string,
  versions: readonly string[],
  priorPin: string | undefined,
): PinnedModule {
  const path = childPath(modulePath(moduleName), 'version');
  const pinned = moduleVersionToRun(undefined, priorPin, versions);
  if (!pinned) {
    return {
      module: raw,
      notes: [],
      problems: [{ path, message: `module ${moduleId} has no release to pin to`, hint: 'give a version explicitly' }],
    };
  }
  const notes: PlanNote[] = priorPin
    ? []
    : [
        {
          level: 'info',
          path,
          message: `no version given: pinned to ${pinned}, the newest release, at this first apply; it will not update automatically`,
        },
      ];
  return { module: { ...raw, version: pinned }, pin: { name: moduleName, version: pinned }, notes, problems: [] };
}

/** What a module's version policy runs: a warning when nothing qualifies, else its unlisted models and a summary. */
function policyNotes(
  config: Readonly<Record<string, unknown>>,
  moduleId: string,
  moduleName: string,
  policyText: string,
  facts: RegistryFacts,
  server: string | undefined,
): PlanNote[] {
  const { policy, resolved, provided, summary, skipped } = policyFacts(facts, policyText, server);
  if (!policy) return [];
  const skips: PlanNote[] = skipped.map((s) => ({
    level: 'info',
    path: childPath(modulePath(moduleName), 'version'),
    message: `${s.version} skipped: ${s.reason}`,
  }));
  if (!resolved) {
    return [
      {
        level: 'warning',
        path: childPath(modulePath(moduleName), 'version'),
        message: `no version of ${moduleId} satisfies ${policyText}: the machine will not be able to start it (the registry has: ${facts.versions.join(', ') || 'none'})`,
      },
      ...skips,
    ];
  }
  const unlisted = provided.size > 0 ? unlistedModels(config, moduleId, resolved, provided) : [];
  return summary ? [...unlisted, { level: 'info', path: modulePath(moduleName), message: summary }, ...skips] : [...unlisted, ...skips];
}

/**
 * Why a model of the module is not one its resolved version lists. Model names are matched
 * as the module's manifest writes them, case included: a model listed in another case is named.
 */
export function unlistedModelMessage(moduleId: string, resolved: string, model: string, provided: ReadonlySet<string>): string {
  const lower = model.toLowerCase();
  const other = [...provided].find((p) => p.toLowerCase() === lower);
  const listed = other === undefined ? '' : `; it lists ${other} (model names follow the module's manifest, case included)`;
  return `${moduleId}@${resolved} does not list model ${model}${listed}`;
}

/** Resources of the config using a model of the module that its resolved version does not list. */
function unlistedModels(
  config: Readonly<Record<string, unknown>>,
  moduleId: string,
  resolved: string,
  provided: ReadonlySet<string>,
): PlanNote[] {
  const prefix = `${moduleId}:`;
  const notes: PlanNote[] = [];
  for (const list of RESOURCE_LISTS) {
    const entries: unknown[] = Array.isArray(config[list]) ? (config[list] as unknown[]) : [];
    for (const entry of entries) {
      if (!isObject(entry) || typeof entry.model !== 'string' || !entry.model.startsWith(prefix) || provided.has(entry.model)) continue;
      notes.push({
        level: 'warning',
        path: childPath(childPath(`config.${list}`, String(entry.name)), 'model'),
        message: unlistedModelMessage(moduleId, resolved, entry.model, provided),
      });
    }
  }
  return notes;
}
