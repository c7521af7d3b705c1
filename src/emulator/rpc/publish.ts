/**
 * Publishing registry versions (emulator controls and seeding). A new module version moves
 * every machine whose update policy admits it, counting a restart; patch pins
 * and machines whose policy does not admit it stay.
 */
import * as semver from 'semver';
import {
  parseApiTriplet,
  parseModelTriplet,
  parseModuleId,
  tryParseVersionPolicy,
  type ModelFramework,
  type ModelType,
} from '../../domain';
import { isOrganizationOwner, organizationsOf, type Principal } from '../auth/principal';
import type { Db } from '../db/database';
import { automaticUpdateTarget } from '../logic/deployments';
import { partViamServerVersion } from '../store/server-versions';
import { setVersionMinViamServer } from '../store/registry';
import { getRobot, getPart } from '../store/machines';
import {
  claimNamespace,
  listOrganizations,
  organizationByClaimedNamespace,
  organizationByNamespace,
  getOrganization,
  type OrganizationRecord,
} from '../store/accounts';
import { deploymentsOfModule, moveDeployment } from '../store/deployments';
import {
  insertRegistryItem,
  insertRegistryVersion,
  registryVersions,
  type RegistryItemRecord,
  type RegistryItemType,
} from '../store/registry';
import { findRegistryItem } from '../logic/registry-items';
import { alreadyExists, invalidArgument, permissionDenied } from './errors';

/** Who publishes: a principal (controls) or the seeding itself, which may publish anywhere. */
export type Publisher = Principal | 'seed';

export interface ModuleUpdate {
  readonly machineId: string;
  readonly machineName: string;
  readonly partId: string;
  readonly moduleName: string;
  readonly fromVersion: string;
  readonly toVersion: string;
  readonly restartCount: number;
}

function checkVersion(version: string): void {
  if (tryParseVersionPolicy(version)?.kind !== 'patch') {
    throw invalidArgument(`version: ${JSON.stringify(version)} is not a semantic version X.Y.Z (prereleases like 1.2.0-rc.1 allowed)`);
  }
}

/**
 * The organization that owns (or will own) items of a namespace, checked against the
 * publisher, and the namespace its new items get. A namespace no organization has is
 * claimed for the publisher's organization at its first publish (an emulator convenience
 * for working offline with one's own modules; the real service registers namespaces).
 */
function owningOrganization(db: Db, publisher: Publisher, namespace: string, now: number): { org: OrganizationRecord; namespace: string } {
  const claimed = organizationByClaimedNamespace(db, namespace);
  const org = organizationByNamespace(db, namespace) ?? getOrganization(db, namespace) ?? claimed;
  if (!org) {
    const owned = publisher === 'seed' ? [] : organizationsOf(publisher).filter((id) => isOrganizationOwner(publisher, id));
    const only = owned.length === 1 ? getOrganization(db, owned[0] as string) : undefined;
    if (!only) {
      throw invalidArgument(
        `no organization has the public namespace ${JSON.stringify(namespace)}, and this API key does not own exactly one organization to claim it for`,
      );
    }
    if (!NAMESPACE.test(namespace)) {
      throw invalidArgument(
        `${JSON.stringify(namespace)} cannot be a namespace: use lowercase letters, digits and "-", starting with a letter`,
      );
    }
    claimNamespace(db, namespace, only.id, now);
    return { org: only, namespace };
  }
  if (publisher !== 'seed' && !isOrganizationOwner(publisher, org.id)) {
    throw permissionDenied(`namespace ${namespace} belongs to organization ${org.id}, which this API key does not own`);
  }
  return { org, namespace: claimed ? namespace : org.publicNamespace || org.id };
}

/** A namespace that may be claimed. */
const NAMESPACE = /^[a-z][a-z0-9-]{0,62}$/;

function existingOrNew(
  db: Db,
  publisher: Publisher,
  itemId: string,
  type: RegistryItemType,
  now: number,
  extra: { description: string; modelType?: ModelType; modelFramework?: ModelFramework },
): RegistryItemRecord {
  const parsed = parseModuleId(itemId);
  if (!parsed) throw invalidArgument(`${JSON.stringify(itemId)} is not a registry id <namespace>:<name>`);
  const found = findRegistryItem(db, itemId);
  if (found) {
    if (found.type !== type) throw invalidArgument(`registry item ${found.itemId} is a ${found.type}, not a ${type}`);
    if (publisher !== 'seed' && !isOrganizationOwner(publisher, found.organizationId)) {
      throw permissionDenied(
        `registry item ${found.itemId} belongs to organization ${found.organizationId}, which this API key does not own`,
      );
    }
    return found;
  }
  const { org, namespace } = owningOrganization(db, publisher, parsed.namespace, now);
  const item: RegistryItemRecord = {
    itemId: `${namespace}:${parsed.name}`,
    organizationId: org.id,
    namespace,
    name: parsed.name,
    type,
    visibility: 'public',
    description: extra.description,
    modelType: extra.modelType ?? 0,
    modelFramework: extra.modelFramework ?? 0,
    createdOn: now,
    updatedOn: now,
  };
  insertRegistryItem(db, item);
  return item;
}

/**
 * Publishes a module version. `models` default to those of the newest existing version.
 * Returns the machines that moved to it (or to a newer admitted version).
 */
export function publishModuleVersion(
  db: Db,
  publisher: Publisher,
  req: {
    moduleId: string;
    version: string;
    models: readonly { api: string; model: string }[];
    description?: string;
    minViamServerVersion?: string;
  },
  now: number,
): { moduleId: string; updates: ModuleUpdate[] } {
  checkVersion(req.version);
  return db
    .transaction(() => {
      const item = existingOrNew(db, publisher, req.moduleId, 'module', now, { description: req.description ?? '' });
      const existing = registryVersions(db, item.itemId);
      if (existing.some((v) => semver.eq(v.version, req.version))) {
        throw alreadyExists(`module ${item.itemId} already has version ${req.version}`);
      }
      const models = req.models.length > 0 ? req.models : (existing[existing.length - 1]?.models ?? []);
      models.forEach((m, i) => {
        if (!parseApiTriplet(m.api))
          throw invalidArgument(`models[${i}].api: ${JSON.stringify(m.api)} is not an API triplet namespace:type:name`);
        if (!parseModelTriplet(m.model)) throw invalidArgument(`models[${i}].model: ${JSON.stringify(m.model)} is not a model triplet`);
        // A module serves models of its own namespace, named as it likes (viam:realsense serves viam:camera:realsense).
        const namespace = m.model.slice(0, m.model.indexOf(':'));
        if (namespace !== item.itemId.slice(0, item.itemId.indexOf(':')) && namespace !== item.organizationId) {
          throw invalidArgument(`models[${i}].model: ${m.model} is not of the namespace of module ${item.itemId}`);
        }
      });
      insertRegistryVersion(db, item.itemId, { version: req.version, models: models.map((m) => ({ api: m.api, model: m.model })) }, now);
      if (req.minViamServerVersion) setVersionMinViamServer(db, item.itemId, req.version, req.minViamServerVersion);
      const available = registryVersions(db, item.itemId);
      const deployments = [...deploymentsOfModule(db, item.itemId), ...deploymentsOfModule(db, `${item.organizationId}:${item.name}`)];
      const updates: ModuleUpdate[] = [];
      for (const d of deployments) {
        const target = automaticUpdateTarget(d, available, partViamServerVersion(db, d.partId, true));
        if (target === undefined) continue;
        const moved = moveDeployment(db, d, target, now);
        const part = getPart(db, d.partId);
        const robot = part && getRobot(db, part.robotId);
        updates.push({
          machineId: robot?.id ?? '',
          machineName: robot?.name ?? '',
          partId: d.partId,
          moduleName: d.moduleName,
          fromVersion: d.deployedVersion,
          toVersion: target,
          restartCount: moved.restartCount,
        });
      }
      return { moduleId: item.itemId, updates };
    })
    .immediate();
}

/** Publishes a training script version (`namespace:name`). */
export function publishTrainingScript(
  db: Db,
  publisher: Publisher,
  req: { itemId: string; version: string; modelType?: ModelType; modelFramework?: ModelFramework; description?: string },
  now: number,
): { itemId: string } {
  checkVersion(req.version);
  return db
    .transaction(() => {
      const item = existingOrNew(db, publisher, req.itemId, 'ml_training', now, {
        description: req.description ?? '',
        ...(req.modelType === undefined ? {} : { modelType: req.modelType }),
        ...(req.modelFramework === undefined ? {} : { modelFramework: req.modelFramework }),
      });
      if (registryVersions(db, item.itemId).some((v) => v.version === req.version)) {
        throw alreadyExists(`training script ${item.itemId} already has version ${req.version}`);
      }
      insertRegistryVersion(db, item.itemId, { version: req.version, models: [] }, now);
      return { itemId: item.itemId };
    })
    .immediate();
}

/** Organizations a principal owns (controls act within them). */
export function ownedOrganizations(db: Db, p: Principal): OrganizationRecord[] {
  return listOrganizations(
    db,
    p.grants.filter((g) => g.resourceType === 'organization' && g.role === 'owner').map((g) => g.organizationId),
  );
}
