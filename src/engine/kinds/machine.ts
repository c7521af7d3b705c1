import { ServiceError, type RegistryModule } from '../../api/client';
import {
  describeVersionPolicy,
  formatVersionPolicy,
  isSecretEnvName,
  newestVersion,
  resolveModuleVersion,
  tryParseVersionPolicy,
  validateMachineConfig,
} from '../../domain';
import { FleetformError } from '../../domain/errors';
import { isObject, joinPath, stableStringify, toJson, UNKNOWN, type JsonObject } from '../json';
import type { Applied, Desired, Judgement, KindContext, Observation, PlanNote, PlanProblem, ResourceKind } from '../kind';
import type { StateEntry } from '../state/schema';
import { configDocument, configView } from './machine-config-view';
import { unlessNotFound } from './not-found';

/** Thrown when the machine changed on the service after the plan read it. */
export class ConcurrentChangeError extends FleetformError {}

function parseConfig(raw: unknown): { config: Record<string, unknown>; problem?: PlanProblem } {
  if (isObject(raw)) return { config: raw };
  if (typeof raw !== 'string') return { config: {}, problem: { path: 'config', message: 'config must be a JSON object or JSON text' } };
  try {
    const parsed: unknown = JSON.parse(raw);
    if (isObject(parsed)) return { config: parsed };
  } catch {
    /* reported below */
  }
  return { config: {}, problem: { path: 'config', message: 'config is not a JSON object', hint: 'synthesize the app again' } };
}

function registryModule(ctx: KindContext, moduleId: string): Promise<RegistryModule | undefined> {
  return ctx.memo(`registry-module:${moduleId}`, () => unlessNotFound(() => ctx.client.appClient.getModule(moduleId)));
}

/** What the registry says of a module, derived once per run: version strings, newest overall and newest release. */
interface RegistryFacts {
  readonly module: RegistryModule;
  readonly versions: readonly string[];
  readonly latest: string | undefined;
  readonly latestRelease: string | undefined;
}

function registryFacts(ctx: KindContext, moduleId: string): Promise<RegistryFacts | undefined> {
  return ctx.memo(`registry-facts:${moduleId}`, async () => {
    const module = await registryModule(ctx, moduleId);
    if (!module) return undefined;
    const versions = module.versions.map((v) => v.version);
    return { module, versions, latest: newestVersion(versions, { includePrerelease: true }), latestRelease: newestVersion(versions) };
  });
}

/** The version a policy resolves to among a module's versions, once per run for each module and policy text. */
function resolvedVersion(ctx: KindContext, facts: RegistryFacts, policyText: string): Promise<ReturnType<typeof resolveModuleVersion>> {
  return ctx.memo(`resolved-version:${facts.module.moduleId}:${policyText}`, async () => {
    const policy = tryParseVersionPolicy(policyText);
    return policy ? resolveModuleVersion(policy, facts.versions) : undefined;
  });
}

function pinsOf(entry: StateEntry | undefined): Record<string, string> {
  const pins = entry?.private.pins;
  const out: Record<string, string> = {};
  if (isObject(pins)) for (const [k, v] of Object.entries(pins)) if (typeof v === 'string') out[k] = v;
  return out;
}

/**
 * The version a registry module of a machine runs, as the machine kind decides it: a
 * module without a version runs the version it was pinned to at its first apply (kept in
 * the state entry), else the newest release; one with a version policy runs what the
 * policy resolves to among `versions`.
 */
export function runningModuleVersion(module: { readonly name: string; readonly version?: string }, entry: StateEntry | undefined, versions: readonly string[]): string | undefined {
  if (!module.version) return pinsOf(entry)[module.name] ?? newestVersion(versions);
  const policy = tryParseVersionPolicy(module.version);
  return policy ? resolveModuleVersion(policy, versions)?.version : undefined;
}

/** A machine and the whole configuration of its main part (components, services, modules). */
export const machineKind: ResourceKind = {
  type: 'fleetform_machine',
  replaceOrder: 'delete-first',

  async desire(ctx, attributes, prior): Promise<Desired> {
    const problems: PlanProblem[] = [];
    const notes: PlanNote[] = [];
    const name = typeof attributes.name === 'string' ? attributes.name : '';
    if (!name) problems.push({ path: 'name', message: 'a machine needs a name' });
    const locationId = typeof attributes.location_id === 'string' && attributes.location_id ? attributes.location_id : ctx.locationId;
    const parsed = parseConfig(attributes.config);
    if (parsed.problem) problems.push(parsed.problem);
    const config = parsed.config;
    const result = validateMachineConfig(config, { allowUnpinnedModules: true, pathPrefix: 'config' });
    for (const e of result.errors) problems.push({ path: e.path, message: e.message, ...(e.hint ? { hint: e.hint } : {}) });
    for (const w of result.warnings) notes.push({ level: 'warning', path: w.path, message: w.message });

    const priorPins = pinsOf(prior);
    const pins: Record<string, string> = {};
    const modules = Array.isArray(config.modules) ? config.modules : [];
    const resolvedModules = await Promise.all(
      modules.map(async (raw) => {
        if (!isObject(raw) || raw.type === 'local' || typeof raw.module_id !== 'string') return raw;
        const moduleName = typeof raw.name === 'string' ? raw.name : raw.module_id;
        const path = joinPath(joinPath('config.modules', moduleName), 'version');
        const facts = await registryFacts(ctx, raw.module_id);
        if (!facts) {
          problems.push({ path: joinPath('config.modules', moduleName), message: `module ${raw.module_id} is not in the registry`, hint: 'check module_id, or publish the module first' });
          return raw;
        }
        const { module: found, versions, latest, latestRelease } = facts;
        if (typeof raw.version !== 'string' || raw.version === '') {
          const pinned = priorPins[moduleName] ?? latestRelease;
          if (!pinned) {
            problems.push({ path, message: `module ${raw.module_id} has no release to pin to`, hint: 'give a version explicitly' });
            return raw;
          }
          pins[moduleName] = pinned;
          if (!priorPins[moduleName]) notes.push({ level: 'info', path, message: `no version given: pinned to ${pinned}, the newest release, at this first apply; it will not update automatically` });
          return { ...raw, version: pinned };
        }
        const policy = tryParseVersionPolicy(raw.version);
        if (!policy) return raw;
        const resolved = await resolvedVersion(ctx, facts, raw.version);
        if (!resolved) {
          problems.push({ path, message: `no version of ${raw.module_id} satisfies ${raw.version}`, hint: `the registry has: ${versions.join(', ') || '(none)'}` });
          return raw;
        }
        const model = found.versions.find((v) => v.version === resolved.version);
        const provided = new Set((model?.models ?? []).map((m) => m.model));
        for (const list of ['components', 'services'] as const) {
          const entries = Array.isArray(config[list]) ? (config[list] as unknown[]) : [];
          for (const entry of entries) {
            if (!isObject(entry) || typeof entry.model !== 'string' || !entry.model.startsWith(`${raw.module_id}:`)) continue;
            if (provided.size > 0 && !provided.has(entry.model)) {
              notes.push({ level: 'warning', path: joinPath(joinPath(`config.${list}`, String(entry.name)), 'model'), message: `${raw.module_id}@${resolved.version} does not list model ${entry.model}` });
            }
          }
        }
        const policyText = formatVersionPolicy(policy);
        const updates = policy.kind === 'patch' ? 'never updates automatically' : 'updates automatically (restarting the module) when the registry publishes a newer admitted version';
        notes.push({
          level: 'info',
          path: joinPath('config.modules', moduleName),
          message: `policy ${policyText} (${describeVersionPolicy(policy)}): runs ${resolved.version}; registry latest ${latest ?? '-'}${latestRelease && latestRelease !== latest ? ` (release ${latestRelease})` : ''}; ${updates}`,
        });
        return raw;
      }),
    );
    const desiredConfig: Record<string, unknown> = { ...config };
    if (modules.length > 0) desiredConfig.modules = resolvedModules;
    const view: JsonObject = { name, location_id: locationId, config: configView(desiredConfig) };

    const flagged = new Set(Array.isArray(attributes.sensitive_env) ? attributes.sensitive_env.filter((s): s is string => typeof s === 'string') : []);
    const sensitivePaths: string[] = [];
    for (const raw of resolvedModules) {
      if (!isObject(raw) || !isObject(raw.env)) continue;
      const moduleName = String(raw.name);
      for (const key of Object.keys(raw.env)) {
        if (isSecretEnvName(key) || flagged.has(`${moduleName}.${key}`)) {
          sensitivePaths.push(joinPath(joinPath(joinPath(joinPath('config', 'modules'), moduleName), 'env'), key));
        }
      }
    }
    return { view, sensitivePaths, private: { pins }, notes, problems };
  },

  async observe(ctx, entry): Promise<Observation | undefined> {
    const machineId = entry.ids.machine_id;
    if (!machineId) return undefined;
    const machine = await findMachine(ctx, machineId, entry);
    if (!machine) return undefined;
    const partId = entry.ids.part_id ?? (await mainPartId(ctx, machineId));
    const part = partId ? await unlessNotFound(() => ctx.client.appClient.getMachinePart(partId)) : undefined;
    if (!part) return { view: { name: machine.name, location_id: machine.locationId, config: {} }, version: 'no-part', facts: {} };
    return {
      view: { name: machine.name, location_id: machine.locationId, config: configView(part.config) },
      version: part.lastUpdated?.toISOString() ?? 'never',
      facts: {},
    };
  },

  judge(current, desired): Judgement {
    const replaceReasons: string[] = [];
    if (current.name !== desired.name) replaceReasons.push('name');
    if (current.location_id !== desired.location_id && desired.location_id !== UNKNOWN) replaceReasons.push('location_id');
    const notes: PlanNote[] = [];
    const was = isObject(current.config) ? current.config.modules : undefined;
    const now = isObject(desired.config) ? desired.config.modules : undefined;
    if (isObject(was) && isObject(now)) {
      for (const [m, def] of Object.entries(now)) {
        const before = was[m];
        if (isObject(before) && isObject(def) && (before.version !== def.version || stableStringify(before.env) !== stableStringify(def.env))) {
          notes.push({ level: 'warning', path: joinPath('config.modules', m), message: 'this change restarts the module; what it provides stops while it restarts' });
        }
      }
    }
    return { replaceReasons, problems: [], notes };
  },

  async create(ctx, desired, checkpoint): Promise<Applied> {
    const machineId = await newMachine(ctx, String(desired.name), String(desired.location_id));
    await checkpoint({ ids: { machine_id: machineId }, outputs: { id: machineId } });
    const partId = await mainPartId(ctx, machineId);
    if (!partId) throw new FleetformError(`machine ${machineId} has no main part`, { hint: 'the service did not create one; delete the machine and apply again' });
    const part = await ctx.client.appClient.getMachinePart(partId);
    await ctx.client.appClient.updateMachinePart(part.id, part.name, configDocument(viewConfig(desired), part.config), part.lastUpdated);
    return { ids: { machine_id: machineId, part_id: partId }, outputs: { id: machineId, part_id: partId } };
  },

  async update(ctx, entry, desired, plannedVersion): Promise<Applied> {
    const machineId = entry.ids.machine_id as string;
    const partId = entry.ids.part_id ?? (await mainPartId(ctx, machineId));
    if (!partId) throw new FleetformError(`machine ${machineId} has no main part`, { hint: 'recreate it: fleetform state rm, then apply' });
    const part = await ctx.client.appClient.getMachinePart(partId);
    const seen = part.lastUpdated?.toISOString() ?? 'never';
    const stale = () =>
      new ConcurrentChangeError(`machine ${String(desired.name)} was changed on the service after the plan was made; nothing was overwritten`, {
        hint: 'run `fleetform plan` again to see the change, then apply',
      });
    if (plannedVersion !== null && seen !== plannedVersion) throw stale();
    try {
      await ctx.client.appClient.updateMachinePart(part.id, part.name, configDocument(viewConfig(desired), part.config), part.lastUpdated);
    } catch (err) {
      if (err instanceof ServiceError && err.code === 'FAILED_PRECONDITION') throw stale();
      throw err;
    }
    return { ids: { machine_id: machineId, part_id: partId }, outputs: { id: machineId, part_id: partId } };
  },

  async delete(ctx, entry) {
    const machineId = entry.ids.machine_id;
    if (machineId) await unlessNotFound(() => ctx.client.appClient.deleteMachine(machineId));
    return 'deleted';
  },

  retainOnDelete: () => false,

  identity(view) {
    const name = typeof view.name === 'string' ? view.name : '';
    const locationId = typeof view.location_id === 'string' ? view.location_id : '';
    return name ? { key: { name, location_id: locationId }, label: `machine ${name}` } : undefined;
  },

  async findCreated(ctx, key, managedIds): Promise<Applied | undefined> {
    const machines = await ctx.client.appClient.listMachines(String(key.location_id || ctx.locationId));
    const found = machines.find((m) => m.name === key.name && !managedIds.has(m.id));
    if (!found) return undefined;
    const partId = await mainPartId(ctx, found.id);
    return { ids: { machine_id: found.id, ...(partId ? { part_id: partId } : {}) }, outputs: { id: found.id, ...(partId ? { part_id: partId } : {}) } };
  },

  async importById(ctx, id): Promise<Applied | undefined> {
    const machine = await unlessNotFound(() => ctx.client.appClient.getMachine(id));
    if (!machine) return undefined;
    const partId = await mainPartId(ctx, machine.id);
    return { ids: { machine_id: machine.id, ...(partId ? { part_id: partId } : {}) }, outputs: { id: machine.id, ...(partId ? { part_id: partId } : {}) } };
  },
};

/**
 * Creates the machine; when the location already has one of that name (made elsewhere, or
 * left behind by `fleetform state rm`), says which machine and how to manage it instead.
 */
async function newMachine(ctx: KindContext, name: string, locationId: string): Promise<string> {
  try {
    return await ctx.client.appClient.newMachine(name, locationId);
  } catch (err) {
    if (!(err instanceof ServiceError) || err.code !== 'ALREADY_EXISTS') throw err;
    const existing = (await ctx.client.appClient.listMachines(locationId)).find((m) => m.name === name);
    if (!existing) throw err;
    throw new FleetformError(`a machine named ${name} already exists in location ${locationId} (id ${existing.id}) and fleetform does not manage it`, {
      hint: `to manage that machine with this resource: fleetform import <this address> ${existing.id}; or rename this one`,
    });
  }
}

function viewConfig(desired: JsonObject): JsonObject {
  const c = desired.config;
  return isObject(c) ? c : (toJson({}) as JsonObject);
}

/**
 * Reads a machine through one listing of its location, shared by every machine of the
 * run (one call instead of one per machine); one not listed there is asked for directly.
 */
async function findMachine(ctx: KindContext, machineId: string, entry: StateEntry) {
  const locationId = typeof entry.attributes?.location_id === 'string' ? entry.attributes.location_id : ctx.locationId;
  const listed = await ctx.memo(`machines-in:${locationId}`, async () => {
    const machines = await unlessNotFound(() => ctx.client.appClient.listMachines(locationId));
    return new Map((machines ?? []).map((m) => [m.id, m]));
  });
  return listed.get(machineId) ?? (await unlessNotFound(() => ctx.client.appClient.getMachine(machineId)));
}

async function mainPartId(ctx: KindContext, machineId: string): Promise<string | undefined> {
  const parts = await ctx.client.appClient.getMachineParts(machineId);
  return (parts.find((p) => p.mainPart) ?? parts[0])?.id;
}
