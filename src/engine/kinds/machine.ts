import { noteHeldReloads } from './held-reloads';
import { childPath } from '../../domain/json-path';
import { LOCATION_DEFAULT } from '../../domain/service-defaults';
import { locationOfUnplacedMachine } from '../../domain/machine-location';
import { ServiceError } from '../../api/client/errors';
import { FleetformError } from '../../domain/errors';
import { machineAttributes } from '../../domain/resource-attributes';
import { z } from 'zod';
import { isObject, stableStringify, isUnknown, unknownValue, type Unknown, type JsonObject, type JsonValue } from '../json';
import type { Applied, DesiredValue, Judgement, KindContext, Observation, PlanNote, PlanProblem, ResourceKind } from '../kind';
import { defineKind, sensitivePathsOf, type KindDeclaration } from '../kind-declaration';
import { hidePaths } from '../path-values';
import { runsWithPlannedFragments } from './machine-fragments';
import type { StateEntry } from '../state/schema';
import { configDocument, configView, readFromOf } from './machine-config-view';
import { secretEnvEntries, splitSecretEnv } from './machine-secrets';
import { withReferencedParts, withoutReferencedValues } from '../secret-references';
import { packageEntries } from './machine-packages';
import { awaitModels } from './machine-models';
import { unlessNotFound } from './not-found';
import { analysisOf, gateOf, passHealthGate } from './machine-health-gate';
import { METRIC_KINDS, metricKeysText } from '../../domain/health-analysis';
import { moduleRestarts } from '../../domain/module-restarts';
import { partViamServer, pinsOf, runningVersions } from './machine-modules';
import { desirePartConfig } from './machine-part-config';
import { replacedDefaultsNote } from './machine-default-fragments';

export { pinsOf, runningModuleVersion, runningVersions } from './machine-modules';
export { desirePartConfig, type DesiredPartConfig, type PartConfigAttributes } from './machine-part-config';

/** A machine's config to write: known by apply, when every reference in it is. */
function knownConfig(view: MachineView): JsonObject {
  if (isObject(view.config)) return view.config;
  throw new FleetformError(`the config of machine ${view.name} is not known yet`, {
    hint: 'apply the resources its config names (its fragments) first',
  });
}

/** Thrown when the machine changed on the service after the plan read it. */
export class ConcurrentChangeError extends FleetformError {}

export const machineDeclaration = defineKind({
  type: 'fleetform_machine',
  description: 'A machine and the whole configuration of its main part: components, services and modules.',
  attributes: {
    name: {
      schema: machineAttributes.name,
      description: 'Name of the machine in its location; a new name renames the machine in place (same id).',
    },
    location_id: {
      schema: machineAttributes.location_id,
      description: 'Location the machine lives in.',
      computed: 'when-unset',
      forcesReplacement: true,
      serviceDefault: LOCATION_DEFAULT,
    },
    config: {
      schema: machineAttributes.config,
      description:
        'The machine config as JSON text (components, services, modules) without the secret env entries; a module without a version is pinned to the newest release at its first apply.',
      // The secret parts of the view's config come from secret_env, which is sensitive as a whole.
      sensitive: withReferencedParts(secretEnvEntries),
    },
    secret_env: {
      schema: machineAttributes.secret_env,
      description:
        "The modules' secret env entries by `<module>.<KEY>` (those code marks secret and those whose names look secret), merged into the modules' env.",
      sensitive: true,
    },
    secrets: {
      schema: machineAttributes.secrets,
      description:
        'Secrets by reference, by the path of their value in the config as plans name it (`modules.acme_sensors.env.API_TOKEN`): `{ from = "env", name = "ACME_TOKEN" }`, `{ from = "file", path = "/run/secrets/acme" }`, or `{ from = "app", id = "value-1" }` (a value the app handed to the fleetform engine that ran it: none under Terraform). The value is read where the plan or apply runs and sent to the service; `config`, plans and state never hold it.',
    },
    deploy_models: {
      schema: machineAttributes.deploy_models,
      description:
        'Models of training jobs the machine deploys, by local package name: `[<organization id>/]<model name>@<model version>`. Each becomes an `ml_model` package of the config, written once that model version exists.',
    },
    health_gate: {
      schema: machineAttributes.health_gate,
      description:
        'Makes create and update wait until the machine runs the new config, every module and resource ready, and stays so for `settle` (default 0s); not within `timeout` (default 10m) is an error. Durations like 10m, 1m30s, 500ms.',
    },
    health_analysis: {
      schema: machineAttributes.health_analysis,
      description: `After the health gate, create and update measure what the machine does, by analysis name, each a map of strings: \`metric\` (${METRIC_KINDS.join(', ')}), the metric's keys (${metricKeysText()}; a reading's \`method\` defaults to Readings), a bound \`min\` and/or \`max\`, \`interval\` (default 1m), \`count\` (default 1), \`failure_limit\`, \`inconclusive_limit\` (default 0) and \`min_machines\`. A failed or inconclusive analysis is an error naming the metric, the value and the bound. No baseline: that needs a rollout.`,
    },
    acknowledged: {
      schema: machineAttributes.acknowledged,
      description:
        'Certain failures of the config left so on purpose: by finding path (entries by name, `components.sensor-1.model`), then by finding code, the reason. Each is then a plan warning rather than an error; one matching no finding is a warning.',
    },
    id: { schema: z.string(), description: 'Id the service assigns to the machine.', computed: 'always' },
    part_id: { schema: z.string(), description: "Id of the machine's main part, which holds its config.", computed: 'always' },
  },
});

/**
 * A machine as its kind compares it: the config as an object (modules keyed by name, the
 * secret env entries merged back into their modules' env), not the JSON text code gives.
 */
type MachineView = {
  name: string;
  location_id: string;
  config: JsonObject | Unknown;
  health_gate?: Record<string, string>;
  health_analysis?: Record<string, Record<string, string>>;
};

/** The revision a config write made: the part's last_updated after it. */
function revisionOf(part: { readonly lastUpdated?: Date | undefined }): { revision?: string } {
  return part.lastUpdated ? { revision: part.lastUpdated.toISOString() } : {};
}

/** A config naming an object this apply creates is known only at apply, where it is checked. */
export const CONFIG_KNOWN_AT_APPLY: PlanNote = {
  level: 'info',
  path: 'config',
  message: 'the config names an object this apply creates (a fragment): it is known, and checked, once that exists',
};

/**
 * A config planned with the fragments this apply creates standing in as the stack declares
 * them (checked now, as in every later plan): its checks and notes stand, its config is
 * known only once the fragments exist.
 */
export function checkedAgainstStandIn<View extends { config: JsonValue }>(
  checked: DesiredValue<View>,
  runs?: PlanNote,
): DesiredValue<View> {
  const note: PlanNote = {
    level: 'info',
    path: 'config',
    message:
      'the config names a fragment this apply creates: checked against the fragment as the stack declares it; its id is known once it exists',
  };
  return { ...checked, view: { ...checked.view, config: unknownValue }, notes: [note, ...(runs ? [runs] : []), ...checked.notes] };
}

/**
 * The note showing what a machine importing fragments this apply creates will run: its
 * config resolved with the fragments as the stack declares them, keyed as plans name its
 * entries, every value the machine's secret rules name (those its fragments bring too) hidden.
 */
export async function runsNote(
  ctx: KindContext,
  declaration: KindDeclaration,
  name: string,
  config: JsonValue,
  attributes: Readonly<Record<string, unknown>>,
): Promise<PlanNote | undefined> {
  if (!isObject(config)) return undefined;
  const runs = await runsWithPlannedFragments(ctx, name, configDocument(config));
  if (runs.created.length === 0 || !isObject(runs.config)) return undefined;
  const view: JsonObject = { config: configView(runs.config) };
  const shown = hidePaths(view, sensitivePathsOf(declaration, view, attributes), '(sensitive)');
  const from = runs.created.map((f) => `fragment ${JSON.stringify(f)}`).join(', ');
  return {
    level: 'info',
    path: 'config',
    message: `what it will run, resolved with the fragments as the stack declares them (from ${from}, created by this apply):`,
    value: shown.config ?? null,
  };
}

/** A machine and the whole configuration of its main part (components, services, modules). */
export const machineKind: ResourceKind<typeof machineDeclaration, MachineView> = {
  type: machineDeclaration.type,
  declaration: machineDeclaration,
  replaceOrder: 'delete-first',

  async desire(ctx, attributes, prior): Promise<DesiredValue<MachineView>> {
    const problems: PlanProblem[] = [];
    const notes: PlanNote[] = [];
    const name = attributes.name;
    const locationId = attributes.location_id || (await unsetLocationOf(ctx, prior));
    if (isUnknown(attributes.config) && attributes.config.standIn !== undefined) {
      const standIn = attributes.config.standIn;
      const asDeclared = { ...attributes, config: standIn };
      const checked = await machineKind.desire(ctx, asDeclared, prior);
      return checkedAgainstStandIn(checked, await runsNote(ctx, machineDeclaration, name, checked.view.config, asDeclared));
    }
    if (isUnknown(attributes.config)) {
      notes.push(CONFIG_KNOWN_AT_APPLY);
      problems.push(...(await placementProblems(ctx, name, attributes.location_id, locationId, prior)));
      return { view: { name, location_id: locationId, config: unknownValue }, private: { pins: pinsOf(prior) }, notes, problems };
    }
    const desired = await desirePartConfig(ctx, name, attributes, prior);
    problems.push(...desired.problems, ...(await placementProblems(ctx, name, attributes.location_id, locationId, prior)));
    notes.push(...desired.notes);
    const pins = desired.pins;
    const view: MachineView = { name, location_id: locationId, config: desired.config };
    if (prior === undefined && isObject(desired.config)) notes.push(...(await replacedDefaultsNote(ctx, desired.config)));
    if (attributes.health_gate !== undefined) {
      const gate = gateOf(attributes.health_gate);
      problems.push(...gate.problems);
      view.health_gate = { ...attributes.health_gate };
    }
    if (attributes.health_analysis !== undefined) {
      problems.push(...analysisOf(attributes.health_analysis).problems);
      view.health_analysis = structuredClone(attributes.health_analysis);
    }

    return { view, private: { pins }, notes, problems, kindData: { running: desired.running } };
  },

  async observe(ctx, entry): Promise<Observation<MachineView> | undefined> {
    const machineId = entry.ids.machine_id;
    if (!machineId) return undefined;
    const machine = await findMachine(ctx, machineId, entry);
    if (!machine) return undefined;
    const partId = entry.ids.part_id ?? (await mainPartId(ctx, machineId));
    const part = partId ? await unlessNotFound(() => ctx.client.appClient.getMachinePart(partId)) : undefined;
    if (part && partId) noteHeldReloads(ctx, partId, part.config);
    if (!part) return { view: { name: machine.name, location_id: machine.locationId, config: {} }, version: 'no-part', facts: {} };
    const config = configView(part.config);
    // The gate lives in code and state only: the service has no such field.
    const gate: JsonObject = {};
    for (const key of ['health_gate', 'health_analysis'] as const) {
      const kept = entry.attributes?.[key];
      if (isObject(kept)) gate[key] = kept;
    }
    return {
      view: { name: machine.name, location_id: machine.locationId, config, ...gate },
      version: part.lastUpdated?.toISOString() ?? 'never',
      facts: {},
      kindData: { running: await runningVersions(ctx, config, await partViamServer(ctx, partId)) },
    };
  },

  judge({ current, desired, observation, desiredData }): Judgement {
    const notes: PlanNote[] = [];
    const was = isObject(current.config) ? current.config.modules : undefined;
    const now = isObject(desired.config) ? desired.config.modules : undefined;
    const runningBefore = isObject(observation?.kindData?.running) ? observation.kindData.running : {};
    const runningAfter = isObject(desiredData?.running) ? desiredData.running : {};
    if (isObject(was) && isObject(now)) {
      for (const r of moduleRestarts(was, now, runningBefore, runningAfter)) {
        notes.push({
          level: 'warning',
          path: childPath('config.modules', r.name),
          message: `this change restarts the module (${r.why}); what it provides stops while it restarts`,
        });
      }
    }
    return { problems: [], notes };
  },

  async create(ctx, desired, checkpoint): Promise<Applied> {
    await awaitModels(ctx, desired.name, packageEntries(configDocument(knownConfig(desired))));
    const machineId = await newMachine(ctx, desired.name, desired.location_id);
    await checkpoint({ ids: { machine_id: machineId }, outputs: { id: machineId } });
    const partId = await mainPartId(ctx, machineId);
    if (!partId)
      throw new FleetformError(`machine ${machineId} has no main part`, {
        hint: 'the service did not create one; delete the machine and apply again',
      });
    const part = await ctx.client.appClient.getMachinePart(partId);
    const after = await ctx.client.appClient.updateMachinePart(
      part.id,
      part.name,
      configDocument(knownConfig(desired), part.config, part.storedAsText === true),
      part.lastUpdated,
      readFromOf(part),
    );
    await passHealthGate(ctx, desired, partId);
    return { ids: { machine_id: machineId, part_id: partId }, outputs: { id: machineId, part_id: partId }, ...revisionOf(after) };
  },

  async update(ctx, entry, desired, plannedVersion): Promise<Applied> {
    const machineId = entry.ids.machine_id as string;
    const partId = entry.ids.part_id ?? (await mainPartId(ctx, machineId));
    if (!partId) throw new FleetformError(`machine ${machineId} has no main part`, { hint: 'recreate it: fleetform state rm, then apply' });
    const part = await ctx.client.appClient.getMachinePart(partId);
    const seen = part.lastUpdated?.toISOString() ?? 'never';
    const stale = () =>
      new ConcurrentChangeError(`machine ${desired.name} was changed on the service after the plan was made; nothing was overwritten`, {
        hint: 'run `fleetform plan` again to see the change, then apply',
      });
    if (plannedVersion !== null && seen !== plannedVersion) throw stale();
    await renameIfNeeded(ctx, machineId, desired.name);
    // A rename alone writes no config: the part is left as it is (and its version with it).
    if (stableStringify(configView(part.config)) === stableStringify(desired.config))
      return { ids: { machine_id: machineId, part_id: partId }, outputs: { id: machineId, part_id: partId } };
    await awaitModels(ctx, desired.name, packageEntries(configDocument(knownConfig(desired))));
    let after;
    try {
      after = await ctx.client.appClient.updateMachinePart(
        part.id,
        part.name,
        configDocument(knownConfig(desired), part.config, part.storedAsText === true),
        part.lastUpdated,
        readFromOf(part),
      );
    } catch (err) {
      if (err instanceof ServiceError && err.code === 'FAILED_PRECONDITION') throw stale();
      throw err;
    }
    await passHealthGate(ctx, desired, partId);
    return { ids: { machine_id: machineId, part_id: partId }, outputs: { id: machineId, part_id: partId }, ...revisionOf(after) };
  },

  async delete(ctx, entry) {
    const machineId = entry.ids.machine_id;
    if (machineId) await unlessNotFound(() => ctx.client.appClient.deleteMachine(machineId));
    return 'deleted';
  },

  retainOnDelete: () => false,

  attributesOf(view, prior): JsonObject {
    const flagged = new Set(isObject(prior?.secret_env) ? Object.keys(prior.secret_env) : []);
    if (!isObject(view.config)) return { name: view.name, location_id: view.location_id, config: unknownValue };
    // What references fill stays theirs: the attributes keep the references, not the values.
    const { config, secretEnv } = splitSecretEnv(withoutReferencedValues(view.config, prior?.secrets), flagged);
    const attributes: JsonObject = { name: view.name, location_id: view.location_id, config: JSON.stringify(configDocument(config)) };
    if (isObject(view.health_gate)) attributes.health_gate = view.health_gate;
    if (isObject(view.health_analysis)) attributes.health_analysis = view.health_analysis;
    if (Object.keys(secretEnv).length > 0) attributes.secret_env = secretEnv;
    if (isObject(prior?.secrets) && Object.keys(prior.secrets).length > 0) attributes.secrets = prior.secrets;
    return attributes;
  },

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
    return {
      ids: { machine_id: found.id, ...(partId ? { part_id: partId } : {}) },
      outputs: { id: found.id, ...(partId ? { part_id: partId } : {}) },
    };
  },

  async importById(ctx, id): Promise<Applied | undefined> {
    const machine = await machineById(ctx, id);
    if (!machine) return undefined;
    const partId = await mainPartId(ctx, machine.id);
    return {
      ids: { machine_id: machine.id, ...(partId ? { part_id: partId } : {}) },
      outputs: { id: machine.id, ...(partId ? { part_id: partId } : {}) },
    };
  },
};

/** A machine read once per run: an import reads it, then observes it. */
function machineById(ctx: KindContext, machineId: string) {
  return ctx.memo(`machine:${machineId}`, () => unlessNotFound(() => ctx.client.appClient.getMachine(machineId)));
}

/** The locations of the run's organization, read once per run. */
function locationsOf(ctx: KindContext): Promise<ReadonlyMap<string, string>> {
  return ctx.memo(
    `locations:${ctx.organizationId}`,
    async () => new Map((await ctx.client.appClient.listLocations(ctx.organizationId)).map((l) => [l.id, l.name])),
  );
}

/** The machines of a location by id, read once per run and shared by every machine there. */
function machinesIn(ctx: KindContext, locationId: string) {
  return ctx.memo(`machines-in:${locationId}`, async () => {
    const machines = await unlessNotFound(() => ctx.client.appClient.listMachines(locationId));
    return new Map((machines ?? []).map((m) => [m.id, m]));
  });
}

/**
 * What would make the create or rename fail on the service, found before any write: a
 * location the organization does not have, a name another machine holds there.
 */
async function placementProblems(
  ctx: KindContext,
  name: string,
  explicitLocation: string | undefined,
  locationId: string,
  prior: StateEntry | undefined,
): Promise<PlanProblem[]> {
  if (isUnknown(name) || isUnknown(locationId)) return [];
  if (locationId === '') return [await defaultLocationProblem(ctx)];
  if (explicitLocation) {
    let locations = await locationsOf(ctx);
    // A location this run created since the listing was read (a reference resolved at apply).
    if (!locations.has(explicitLocation))
      locations = new Map((await ctx.client.appClient.listLocations(ctx.organizationId)).map((l) => [l.id, l.name]));
    if (!locations.has(explicitLocation)) {
      const choices = [...locations].map(([id, n]) => `${id} (${n})`).join(', ') || 'none';
      return [
        {
          path: 'location_id',
          message: `organization ${ctx.organizationId} has no location ${explicitLocation}`,
          hint: `use one of its locations: ${choices}`,
        },
      ];
    }
  }
  const own = prior?.ids.machine_id;
  const priorName = typeof prior?.attributes?.name === 'string' ? prior.attributes.name : undefined;
  if (own && priorName === name) return [];
  const holder = [...(await machinesIn(ctx, locationId)).values()].find((m) => m.name === name && m.id !== own);
  if (!holder) return [];
  return [
    {
      path: 'name',
      message: `location ${locationId} already has a machine named ${name} (id ${holder.id})`,
      hint: `if fleetform manages it under another address, move that address instead of recreating it (fleetform state mv OLD NEW); to manage it with this resource: fleetform import <this address> ${holder.id}; or choose another name`,
      existingId: holder.id,
    },
  ];
}

/** Where a machine whose code names no location lives (see locationOfUnplacedMachine); '' when it must say which. */
async function unsetLocationOf(ctx: KindContext, prior: StateEntry | undefined): Promise<string> {
  const current = typeof prior?.attributes?.location_id === 'string' ? prior.attributes.location_id : undefined;
  const named = ctx.locationNamed ? ctx.locationId : undefined;
  if (named || current) return locationOfUnplacedMachine({ named, current, existing: [], creating: 0 }).locationId ?? '';
  const existing = ctx.locationId ? [ctx.locationId] : [...(await locationsOf(ctx)).keys()];
  return locationOfUnplacedMachine({ existing, creating: ctx.creatingLocations ?? 0 }).locationId ?? '';
}

/** A machine that names no location, where the provider names none and the organization has not exactly one (counting those the stack creates). */
async function defaultLocationProblem(ctx: KindContext): Promise<PlanProblem> {
  const locations = await locationsOf(ctx);
  const choices = [...locations].map(([id, n]) => `${id} (${n})`).join(', ');
  const creating = ctx.creatingLocations ?? 0;
  const count = locations.size + creating;
  const created = creating > 0 ? ` once this stack creates ${creating} more` : '';
  return {
    path: 'location_id',
    message:
      count === 0
        ? `organization ${ctx.organizationId} has no location to place the machine in`
        : `organization ${ctx.organizationId} ${creating > 0 ? 'will have' : 'has'} ${count} locations${created}: the machine must say which`,
    hint: `give the Machine a location (a Location construct or a location id), or set locationId on the FleetProvider${choices ? `; choices: ${choices}` : ''}`,
  };
}

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
    throw new FleetformError(
      `a machine named ${name} already exists in location ${locationId} (id ${existing.id}) and fleetform does not manage it`,
      {
        hint: `to manage that machine with this resource: fleetform import <this address> ${existing.id}; or rename this one`,
      },
    );
  }
}

/** Gives the machine its desired name through UpdateRobot; its id, parts and config stay. */
async function renameIfNeeded(ctx: KindContext, machineId: string, name: string): Promise<void> {
  const machine = await ctx.client.appClient.getMachine(machineId);
  if (machine.name === name) return;
  try {
    await ctx.client.appClient.updateMachine(machineId, name, machine.locationId);
  } catch (err) {
    if (!(err instanceof ServiceError) || err.code !== 'ALREADY_EXISTS') throw err;
    throw new FleetformError(
      `cannot rename machine ${machine.name} to ${name}: location ${machine.locationId} already has a machine of that name`,
      {
        hint: 'choose another name, or remove the other machine first',
      },
    );
  }
}

/**
 * Reads a machine through one listing of its location, shared by every machine of the
 * run (one call instead of one per machine); one not listed there is asked for directly.
 */
async function findMachine(ctx: KindContext, machineId: string, entry: StateEntry) {
  const locationId = typeof entry.attributes?.location_id === 'string' ? entry.attributes.location_id : ctx.locationId;
  // A machine just imported, in an organization of several locations, has no location to list yet.
  if (!locationId) return machineById(ctx, machineId);
  const listed = await machinesIn(ctx, locationId);
  return listed.get(machineId) ?? (await unlessNotFound(() => ctx.client.appClient.getMachine(machineId)));
}

async function mainPartId(ctx: KindContext, machineId: string): Promise<string | undefined> {
  const parts = await ctx.client.appClient.getMachineParts(machineId);
  return (parts.find((p) => p.mainPart) ?? parts[0])?.id;
}
