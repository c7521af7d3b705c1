/**
 * A machine's registry modules against the registry: what each version policy runs, the
 * version a module without one is pinned to at its first apply, and what planning notes of
 * them. The registry is read once per run for each module.
 */
import { childPath } from '../../domain/json-path';
import type { RegistryModule } from '../../api/client';
import {
  describeVersionPolicy,
  formatVersionPolicy,
  newestVersion,
  RESOURCE_LISTS,
  moduleVersionToRun,
  tryParseVersionPolicy,
  type VersionPolicy,
} from '../../domain';
import { isObject, type JsonObject, type JsonValue } from '../json';
import type { KindContext, PlanNote, PlanProblem } from '../kind';
import type { StateEntry } from '../state/schema';
import { unlessNotFound } from './not-found';

function registryModule(ctx: KindContext, moduleId: string): Promise<RegistryModule | undefined> {
  return ctx.memo(`registry-module:${moduleId}`, () => unlessNotFound(() => ctx.client.appClient.getModule(moduleId)));
}

/** What the registry says of a module, derived once per run: version strings, newest overall and newest release. */
interface RegistryFacts {
  readonly module: RegistryModule;
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
}

function registryFacts(ctx: KindContext, moduleId: string): Promise<RegistryFacts | undefined> {
  return ctx.memo(`registry-facts:${moduleId}`, async () => {
    const module = await registryModule(ctx, moduleId);
    if (!module) return undefined;
    const versions = module.versions.map((v) => v.version);
    return {
      module,
      versions,
      latest: newestVersion(versions, { includePrerelease: true }),
      latestRelease: newestVersion(versions),
      policies: new Map(),
    };
  });
}

/** What `policyText` comes to for the module, worked out once per run for each module and text. */
function policyFacts(facts: RegistryFacts, policyText: string): PolicyFacts {
  const known = facts.policies.get(policyText);
  if (known) return known;
  const policy = tryParseVersionPolicy(policyText);
  const resolved = moduleVersionToRun(policyText, undefined, facts.versions);
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
  const found: PolicyFacts = { policy, resolved, provided, summary };
  facts.policies.set(policyText, found);
  return found;
}

/** The version each registry module of a config view runs, by module name (absent when the registry cannot tell). */
export async function runningVersions(ctx: KindContext, config: JsonValue | undefined): Promise<JsonObject> {
  const modules = isObject(config) && isObject(config.modules) ? config.modules : {};
  const running: JsonObject = {};
  await Promise.all(
    Object.entries(modules).map(async ([name, m]) => {
      if (!isObject(m) || m.type === 'local' || typeof m.module_id !== 'string') return;
      const facts = await registryFacts(ctx, m.module_id);
      const version = facts && typeof m.version === 'string' && m.version !== '' ? policyFacts(facts, m.version).resolved : undefined;
      if (version) running[name] = version;
    }),
  );
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
}

/** One module entry as it will run, the pin it takes and what planning found of it. */
interface PinnedModule {
  readonly module: unknown;
  readonly pin?: { readonly name: string; readonly version: string };
  readonly notes: PlanNote[];
  readonly problems: PlanProblem[];
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
): Promise<PinnedModules> {
  const modules: unknown[] = Array.isArray(config.modules) ? config.modules : [];
  const each = await Promise.all(modules.map((raw) => pinModule(ctx, config, raw, priorPins)));
  const pins: Record<string, string> = {};
  for (const m of each) if (m.pin) pins[m.pin.name] = m.pin.version;
  return {
    modules: each.map((m) => m.module),
    pins,
    notes: each.flatMap((m) => m.notes),
    problems: each.flatMap((m) => m.problems),
  };
}

function unchanged(module: unknown, notes: PlanNote[] = []): PinnedModule {
  return { module, notes, problems: [] };
}

function modulePath(moduleName: string): string {
  return childPath('config.modules', moduleName);
}

async function pinModule(
  ctx: KindContext,
  config: Readonly<Record<string, unknown>>,
  raw: unknown,
  priorPins: Readonly<Record<string, string>>,
): Promise<PinnedModule> {
  if (!isObject(raw) || raw.type === 'local' || typeof raw.module_id !== 'string') return unchanged(raw);
  const moduleId = raw.module_id;
  const moduleName = typeof raw.name === 'string' ? raw.name : moduleId;
  const facts = await registryFacts(ctx, moduleId);
  if (!facts) return unchanged(raw, [notInRegistry(moduleId, moduleName)]);
  if (typeof raw.version !== 'string' || raw.version === '') {
    return pinnedToRelease(raw, moduleId, moduleName, facts.versions, priorPins[moduleName]);
  }
  return unchanged(raw, policyNotes(config, moduleId, moduleName, raw.version, facts));
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
): PlanNote[] {
  const { policy, resolved, provided, summary } = policyFacts(facts, policyText);
  if (!policy) return [];
  if (!resolved) {
    return [
      {
        level: 'warning',
        path: childPath(modulePath(moduleName), 'version'),
        message: `no version of ${moduleId} satisfies ${policyText}: the machine will not be able to start it (the registry has: ${facts.versions.join(', ') || 'none'})`,
      },
    ];
  }
  const unlisted = provided.size > 0 ? unlistedModels(config, moduleId, resolved, provided) : [];
  return summary ? [...unlisted, { level: 'info', path: modulePath(moduleName), message: summary }] : unlisted;
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
