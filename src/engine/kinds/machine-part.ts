import { noteHeldReloads } from './held-reloads';
import { z } from 'zod';
import type { MachinePart } from '../../api/client';
import { ServiceError } from '../../api/client/errors';
import { FleetformError } from '../../domain/errors';
import { machineAttributes } from '../../domain/resource-attributes';
import { isObject, isUnknown, stableStringify, unknownValue, type JsonObject, type Unknown } from '../json';
import type { Applied, DesiredValue, KindContext, Observation, ResourceKind } from '../kind';
import { defineKind } from '../kind-declaration';
import { withoutReferencedValues, withReferencedParts } from '../secret-references';
import { checkedAgainstStandIn, ConcurrentChangeError, CONFIG_KNOWN_AT_APPLY, desirePartConfig, pinsOf, runsNote } from './machine';
import { configDocument, configView, readFromOf } from './machine-config-view';
import { awaitModels } from './machine-models';
import { packageEntries } from './machine-packages';
import { secretEnvEntries, splitSecretEnv } from './machine-secrets';
import { unlessNotFound } from './not-found';

/** The Terraform type of a machine's part other than its main one. */
export const MACHINE_PART_TYPE = 'fleetform_machine_part';

export const machinePartDeclaration = defineKind({
  type: MACHINE_PART_TYPE,
  description:
    "A part of a machine other than its main one (an arm's controller on a computer of its own, a camera rig): its name and its whole config, written as a machine's main part's config is. The machine's main part is the machine's own `config`.",
  attributes: {
    machine_id: {
      schema: z.string().min(1, 'a machine part needs the id of its machine'),
      description: 'Id of the machine the part belongs to; another machine makes a new part.',
      forcesReplacement: true,
    },
    name: {
      schema: z.string().min(1, 'a machine part needs a name'),
      description: 'Name of the part, unique in its machine; a new name renames the part in place (same id).',
    },
    config: {
      schema: machineAttributes.config,
      description:
        "The part's config as JSON text, in the form of a machine's config (components, services, modules, remotes, frames, network, ...) without the secret env entries.",
      sensitive: withReferencedParts(secretEnvEntries),
    },
    secret_env: {
      schema: machineAttributes.secret_env,
      description: "The part's modules' secret env entries by `<module>.<KEY>`, merged into the modules' env.",
      sensitive: true,
    },
    secrets: {
      schema: machineAttributes.secrets,
      description: "Secrets by reference, by the path of their value in the part's config as plans name it, as a machine's `secrets`.",
    },
    acknowledged: {
      schema: machineAttributes.acknowledged,
      description: "Certain failures of the part's config left so on purpose, as a machine's `acknowledged`.",
    },
    id: { schema: z.string(), description: 'Id the service assigns to the part.', computed: 'always' },
  },
});

/** A part as its kind compares it: the config as an object keyed as a machine's is. */
type MachinePartView = { machine_id: string; name: string; config: JsonObject | Unknown };

const applied = (partId: string): Applied => ({ ids: { part_id: partId }, outputs: { id: partId } });

/** The revision a config write made: the part's last_updated after it. */
function revisionOf(part: MachinePart): { revision?: string } {
  return part.lastUpdated ? { revision: part.lastUpdated.toISOString() } : {};
}

function knownConfig(view: MachinePartView): JsonObject {
  if (isObject(view.config)) return view.config;
  throw new FleetformError(`the config of machine part ${view.name} is not known yet`, {
    hint: 'apply the resources its config names (its fragments) first',
  });
}

/** The main part is the machine's: a fleetform_machine's config, never a part of its own. */
function mainPartRefusal(part: MachinePart): FleetformError {
  return new FleetformError(`part ${part.id} is the main part of machine ${part.machineId}`, {
    hint: `the main part's config is the machine's own: declare a Machine for it and import the machine by its id (fleetform import fleetform_machine.NAME ${part.machineId}, NAME the Machine's construct id)`,
  });
}

/** A part of a machine other than its main one: created with NewRobotPart, written with UpdateRobotPart, removed with DeleteRobotPart. */
export const machinePartKind: ResourceKind<typeof machinePartDeclaration, MachinePartView> = {
  type: machinePartDeclaration.type,
  declaration: machinePartDeclaration,
  // A part's name is unique in its machine.
  replaceOrder: 'delete-first',

  async desire(ctx, attributes, prior): Promise<DesiredValue<MachinePartView>> {
    const { machine_id, name } = attributes;
    if (isUnknown(attributes.config) && attributes.config.standIn !== undefined) {
      const standIn = attributes.config.standIn;
      const asDeclared = { ...attributes, config: standIn };
      const checked = await machinePartKind.desire(ctx, asDeclared, prior);
      return checkedAgainstStandIn(checked, await runsNote(ctx, machinePartDeclaration, name, checked.view.config, asDeclared));
    }
    if (isUnknown(attributes.config)) {
      return {
        view: { machine_id, name, config: unknownValue },
        private: { pins: pinsOf(prior) },
        notes: [CONFIG_KNOWN_AT_APPLY],
        problems: [],
      };
    }
    const desired = await desirePartConfig(ctx, name, attributes, prior);
    return {
      view: { machine_id, name, config: desired.config },
      private: { pins: desired.pins },
      notes: desired.notes,
      problems: desired.problems,
    };
  },

  async observe(ctx, entry): Promise<Observation<MachinePartView> | undefined> {
    const partId = entry.ids.part_id;
    const part = partId ? await unlessNotFound(() => ctx.client.appClient.getMachinePart(partId)) : undefined;
    if (part && partId) noteHeldReloads(ctx, partId, part.config);
    if (!part) return undefined;
    return {
      view: { machine_id: part.machineId, name: part.name, config: configView(part.config) },
      version: part.lastUpdated?.toISOString() ?? 'never',
      facts: {},
    };
  },

  async create(ctx, desired, checkpoint): Promise<Applied> {
    const config = knownConfig(desired);
    await awaitModels(ctx, desired.name, packageEntries(configDocument(config)));
    const partId = await newPart(ctx, desired.machine_id, desired.name);
    await checkpoint(applied(partId));
    const part = await ctx.client.appClient.getMachinePart(partId);
    const after = await ctx.client.appClient.updateMachinePart(
      partId,
      desired.name,
      configDocument(config, part.config, part.storedAsText === true),
      part.lastUpdated,
      readFromOf(part),
    );
    return { ...applied(partId), ...revisionOf(after) };
  },

  async update(ctx, entry, desired, plannedVersion): Promise<Applied> {
    const partId = entry.ids.part_id as string;
    const part = await ctx.client.appClient.getMachinePart(partId);
    const stale = () =>
      new ConcurrentChangeError(
        `machine part ${desired.name} was changed on the service after the plan was made; nothing was overwritten`,
        {
          hint: 'run `fleetform plan` again to see the change, then apply',
        },
      );
    if (plannedVersion !== null && (part.lastUpdated?.toISOString() ?? 'never') !== plannedVersion) throw stale();
    if (part.name === desired.name && stableStringify(configView(part.config)) === stableStringify(desired.config)) return applied(partId);
    const config = knownConfig(desired);
    await awaitModels(ctx, desired.name, packageEntries(configDocument(config)));
    try {
      const after = await ctx.client.appClient.updateMachinePart(
        partId,
        desired.name,
        configDocument(config, part.config, part.storedAsText === true),
        part.lastUpdated,
        readFromOf(part),
      );
      return { ...applied(partId), ...revisionOf(after) };
    } catch (err) {
      if (err instanceof ServiceError && err.code === 'FAILED_PRECONDITION') throw stale();
      if (err instanceof ServiceError && err.code === 'ALREADY_EXISTS') throw await nameTaken(ctx, desired);
      throw err;
    }
  },

  async delete(ctx, entry) {
    const partId = entry.ids.part_id;
    // A part whose machine is gone went with it.
    if (partId) await unlessNotFound(() => ctx.client.appClient.deleteMachinePart(partId));
    return 'deleted';
  },

  retainOnDelete: () => false,

  attributesOf(view, prior): JsonObject {
    if (!isObject(view.config)) return { machine_id: view.machine_id, name: view.name, config: unknownValue };
    const flagged = new Set(isObject(prior?.secret_env) ? Object.keys(prior.secret_env) : []);
    const { config, secretEnv } = splitSecretEnv(withoutReferencedValues(view.config, prior?.secrets), flagged);
    const attributes: JsonObject = { machine_id: view.machine_id, name: view.name, config: JSON.stringify(configDocument(config)) };
    if (Object.keys(secretEnv).length > 0) attributes.secret_env = secretEnv;
    if (isObject(prior?.secrets) && Object.keys(prior.secrets).length > 0) attributes.secrets = prior.secrets;
    return attributes;
  },

  identity(view) {
    const name = typeof view.name === 'string' ? view.name : '';
    const machineId = typeof view.machine_id === 'string' ? view.machine_id : '';
    return name && machineId ? { key: { machine_id: machineId, name }, label: `machine part ${name}` } : undefined;
  },

  async findCreated(ctx, key, managedIds): Promise<Applied | undefined> {
    const parts = (await unlessNotFound(() => ctx.client.appClient.getMachineParts(String(key.machine_id)))) ?? [];
    const found = parts.find((p) => p.name === key.name && !p.mainPart && !managedIds.has(p.id));
    return found ? applied(found.id) : undefined;
  },

  async importById(ctx, id): Promise<Applied | undefined> {
    const part = await unlessNotFound(() => ctx.client.appClient.getMachinePart(id));
    if (!part) return undefined;
    if (part.mainPart) throw mainPartRefusal(part);
    return applied(part.id);
  },
};

/** A rename to a name another part of the machine holds: which part, and the fixes. */
async function nameTaken(ctx: KindContext, desired: MachinePartView): Promise<FleetformError> {
  const machineId = String(desired.machine_id);
  const holder = (await ctx.client.appClient.getMachineParts(machineId)).find((p) => p.name === desired.name);
  return new FleetformError(`machine ${machineId} already has a part named ${desired.name}${holder ? ` (id ${holder.id})` : ''}`, {
    hint: `give this part another name${holder ? `, or remove part ${holder.id} from the machine first` : ''}`,
  });
}

/** Creates the part; a name the machine already has says which part and how to manage it instead. */
async function newPart(ctx: KindContext, machineId: string, name: string): Promise<string> {
  try {
    return await ctx.client.appClient.newMachinePart(machineId, name);
  } catch (err) {
    if (!(err instanceof ServiceError) || err.code !== 'ALREADY_EXISTS') throw err;
    const existing = (await ctx.client.appClient.getMachineParts(machineId)).find((p) => p.name === name);
    throw new FleetformError(
      `machine ${machineId} already has a part named ${name}${existing ? ` (id ${existing.id})` : ''} that fleetform does not manage`,
      {
        hint: existing
          ? `to manage it with this resource: fleetform import <this address> ${existing.id}; or give this part another name`
          : 'give this part another name',
      },
    );
  }
}
