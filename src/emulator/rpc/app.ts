/**
 * `viam.app.v1.AppService`, the part machine configuration needs: organizations,
 * locations, machines and parts (config with `last_known_update` optimistic concurrency,
 * and the history of every config write), the registry reads (trained models included),
 * and API keys.
 */
import { Struct as MessageStruct, type JsonValue } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import { MachineConfigSchema, validateMachineConfig, type MachineConfig } from '../../domain';
import { schemaProblems } from '../../domain/schema-issues';
import type { AppWireServiceType } from '../../api/services';
import { encodeStruct, type StructObject } from '../../api/struct-codec';
import { sortedKeys } from '../logic/stored-config';
import { sentConfig } from './sent-config';
import { withRobotConfigJson } from '../../api/robot-part-config-json';
import { generateApiKeySecret, hashApiKey } from '../auth/keys';
import {
  grantedLocations,
  grantedRobots,
  isOrganizationOwner,
  knowsOrganization,
  organizationsOf,
  roleOn,
  type Principal,
} from '../auth/principal';
import { planDeployments } from '../logic/deployments';
import * as accounts from '../store/accounts';
import { getCheckin } from '../store/checkins';
import { deploymentsOfPart, replaceDeployments } from '../store/deployments';
import * as machines from '../store/machines';
import { partHistory, recordPartEdit, type PartHistoryRecord } from '../store/part-history';
import { newId } from '../store/statements';
import { locationFor, organizationFor, partFor, robotFor } from './access';
import { millisOf, principalOf, timestamp, type Backend } from './context';
import { alreadyExists, failedPrecondition, invalidArgument, invalidIssues, notFound, permissionDenied, required } from './errors';
import { liveMachineHandlers, onlineFields, robotOnlineFields } from './live-machines';
import { fragmentHandlers } from './fragments';
import { newMachineConfig, organizationHandlers, organizationMessage } from './organization-settings';
import { configToCheck, resolvedModules } from '../logic/fragment-resolution';
import { settleTrainingJobs } from './ml-training';
import { DNS_SUFFIX, partDnsName } from '../logic/part-address';
import { historyQuery } from './part-history-query';
import { partViamServerVersion } from '../store/server-versions';
import { setVersionDeprecation } from '../store/registry';
import { findRegistryItem } from '../logic/registry-items';
import { moduleVersionsLookup, ownedVersion, registryItemMessage, registryModuleMessage, visibleRegistryItem } from './registry';
import { listRegistryItems } from './registry-listing';
import { findTrainedModel, trainedModelMessage } from './trained-models';

/** `viam.app.v1.AuthenticationType.API_KEY`: every edit is made with an API key. */
const AUTHENTICATION_TYPE_API_KEY = 2;

function configObject(part: machines.PartRecord): { [key: string]: JsonValue } {
  return JSON.parse(part.config) as { [key: string]: JsonValue };
}

export function appService(backend: Backend): Partial<ServiceImpl<AppWireServiceType>> {
  const { db } = backend;
  const Struct = backend.services.sdk.Struct;

  function robotMessage(r: machines.RobotRecord) {
    return { id: r.id, name: r.name, location: r.locationId, createdOn: timestamp(r.createdOn), ...robotOnlineFields(backend, r.id) };
  }

  function partFields(part: machines.PartRecord) {
    const dns = partDnsName(part);
    return {
      id: part.id,
      name: part.name,
      dnsName: dns,
      secret: part.secret,
      robot: part.robotId,
      locationId: part.locationId,
      mainPart: part.mainPart,
      fqdn: `${dns}.${DNS_SUFFIX}`,
      localFqdn: `${dns}.local.${DNS_SUFFIX}`,
      createdOn: timestamp(part.createdOn),
      lastUpdated: timestamp(part.lastUpdated),
      ...onlineFields(backend, getCheckin(db, part.id)?.lastAccess),
    };
  }

  /** A RobotPart of the SDK's messages, with `robot_config_json` (which they lack) when the config was stored from text. */
  function partMessage(part: machines.PartRecord) {
    const message = new backend.services.sdk.appApi.RobotPart({ ...partFields(part), robotConfig: Struct.fromBinary(encodedConfig(part)) });
    return part.configAsSent ? withRobotConfigJson(message, part.config) : message;
  }

  /** The config as the encoded Struct stored with it (keys sorted), or encoded now for parts stored without one. */
  function encodedConfig(part: machines.PartRecord): Uint8Array<ArrayBuffer> {
    return part.configStruct ?? new Uint8Array(encodeStruct(sortedKeys(configObject(part)) as StructObject));
  }

  /** A history entry: the part as it was before the edit (its name, config and last update then). */
  function historyEntry(part: machines.PartRecord, h: PartHistoryRecord) {
    // The history messages are fleetform's own (with paging), over @bufbuild/protobuf's Struct.
    const robotConfig = MessageStruct.fromBinary(
      h.oldConfigStruct ?? encodeStruct(sortedKeys(JSON.parse(h.oldConfig) as StructObject) as StructObject),
    );
    const asWas = { ...partFields({ ...part, name: h.oldName, lastUpdated: h.oldLastUpdated }), robotConfig };
    return {
      part: part.id,
      robot: h.robotId,
      when: timestamp(h.editedOn),
      old: h.oldConfigAsSent ? { ...asWas, robotConfigJson: h.oldConfig } : asWas,
      editedBy: { type: AUTHENTICATION_TYPE_API_KEY, value: h.editedBy, isDeactivated: accounts.getApiKey(db, h.editedBy) === undefined },
    };
  }

  function locationMessage(l: accounts.LocationRecord) {
    return {
      id: l.id,
      name: l.name,
      parentLocationId: l.parentLocationId ?? '',
      organizations: [{ organizationId: l.organizationId, primary: true }],
      createdOn: timestamp(l.createdOn),
      robotCount: machines.listRobots(db, l.id).length,
    };
  }

  /** The location a location is to sit in: one of the same organization the caller may write to. */
  function parentLocation(p: Principal, organizationId: string, id: string): accounts.LocationRecord {
    const parent = accounts.getLocation(db, id);
    if (!parent || parent.organizationId !== organizationId) {
      throw invalidArgument(`parent_location_id: organization ${organizationId} has no location ${id}`);
    }
    return locationFor(db, p, parent.id, 'write');
  }

  /** A location's id and those of the locations it sits in, innermost first. */
  function locationAncestry(id: string): string[] {
    const chain: string[] = [];
    for (let at: string | undefined = id; at !== undefined && !chain.includes(at); at = accounts.getLocation(db, at)?.parentLocationId)
      chain.push(at);
    return chain;
  }

  /** Locations of an organization the caller can see. */
  function visibleLocations(p: Principal, orgId: string): accounts.LocationRecord[] {
    const all = accounts.listLocations(db, orgId);
    if (roleOn(p, { organizationId: orgId }) !== undefined) return all;
    const direct = new Set(grantedLocations(p, orgId));
    for (const robotId of grantedRobots(p, orgId)) {
      const r = machines.getRobot(db, robotId);
      if (r) direct.add(r.locationId);
    }
    return all.filter((l) => direct.has(l.id));
  }

  return {
    ...liveMachineHandlers(backend),
    ...fragmentHandlers(backend),
    ...organizationHandlers(backend),

    listOrganizations(_req, ctx) {
      const p = principalOf(ctx);
      return { organizations: accounts.listOrganizations(db, organizationsOf(p)).map(organizationMessage) };
    },

    listLocations(req, ctx) {
      const p = principalOf(ctx);
      required(req.organizationId, 'organization_id');
      if (!accounts.getOrganization(db, req.organizationId) || !knowsOrganization(p, req.organizationId)) {
        throw permissionDenied(`no permission on organization ${req.organizationId}`);
      }
      return { locations: visibleLocations(p, req.organizationId).map(locationMessage) };
    },

    createLocation(req, ctx) {
      const p = principalOf(ctx);
      const org = organizationFor(db, p, req.organizationId, 'write');
      const name = required(req.name, 'name').trim();
      const parent = req.parentLocationId ? parentLocation(p, org.id, req.parentLocationId) : undefined;
      return { location: locationMessage(accounts.insertLocation(db, org.id, name, backend.now(), parent?.id)) };
    },

    /**
     * The organization's API keys with their grants. The key's value is not kept (only a
     * salted hash of it), so it is never answered: `key` is empty.
     */
    listKeys(req, ctx) {
      const org = organizationFor(db, principalOf(ctx), req.orgId, 'write');
      return {
        apiKeys: accounts.keysOfOrganization(db, org.id).map((k) => ({
          apiKey: { id: k.id, key: '', name: k.name, createdOn: timestamp(k.createdOn) },
          authorizations: accounts
            .grantsOf(db, k.id)
            .filter((g) => g.organizationId === org.id)
            .map((g) => ({
              authorizationType: 'role',
              authorizationId: `${g.resourceType}_${g.role}`,
              resourceType: g.resourceType,
              resourceId: g.resourceId,
              orgId: g.organizationId,
            })),
        })),
      };
    },

    getLocation(req, ctx) {
      return { location: locationMessage(locationFor(db, principalOf(ctx), req.locationId, 'read')) };
    },

    updateLocation(req, ctx) {
      const p = principalOf(ctx);
      const loc = locationFor(db, p, req.locationId, 'write');
      const name = req.name === undefined ? loc.name : req.name.trim();
      if (name === '') throw invalidArgument('name: a location needs a name (leave name out to keep it)');
      // Unset keeps the parent; the empty string moves the location to the top level.
      let parentId = loc.parentLocationId;
      if (req.parentLocationId !== undefined) {
        parentId = req.parentLocationId === '' ? undefined : parentLocation(p, loc.organizationId, req.parentLocationId).id;
        if (parentId !== undefined && locationAncestry(parentId).includes(loc.id)) {
          throw invalidArgument(`parent_location_id: location ${parentId} is ${loc.id} or inside it; a location cannot sit inside itself`);
        }
      }
      accounts.updateLocation(db, loc.id, name, parentId);
      return { location: locationMessage(accounts.getLocation(db, loc.id) as accounts.LocationRecord) };
    },

    deleteLocation(req, ctx) {
      const loc = locationFor(db, principalOf(ctx), req.locationId, 'write');
      const held = machines.listRobots(db, loc.id);
      if (held.length > 0) {
        const names = held.map((r) => `${r.name} (${r.id})`).join(', ');
        throw failedPrecondition(
          `location ${loc.id} still holds ${held.length} machine(s): ${names}; delete them or move them to another location first`,
        );
      }
      const children = accounts.childLocations(db, loc.id);
      if (children.length > 0) {
        const names = children.map((c) => `${c.name} (${c.id})`).join(', ');
        throw failedPrecondition(
          `location ${loc.id} still holds ${children.length} location(s): ${names}; delete them or move them out first`,
        );
      }
      accounts.deleteLocation(db, loc.id);
      return {};
    },

    newRobot(req, ctx) {
      const loc = locationFor(db, principalOf(ctx), req.location, 'write');
      const name = required(req.name, 'name').trim();
      if (machines.robotNameTaken(db, loc.id, name)) throw alreadyExists(`a machine named ${name} already exists in location ${loc.id}`);
      // A new machine starts with its organization's default fragments imported.
      const config = newMachineConfig(accounts.getOrganization(db, loc.organizationId));
      return { id: machines.insertRobot(db, loc.id, name, backend.now(), config).robotId };
    },

    getRobot(req, ctx) {
      return { robot: robotMessage(robotFor(db, principalOf(ctx), req.id, 'read')) };
    },

    listRobots(req, ctx) {
      const p = principalOf(ctx);
      const loc = accounts.getLocation(db, required(req.locationId, 'location_id'));
      if (!loc || !knowsOrganization(p, loc.organizationId)) throw notFound(`location ${req.locationId} not found`);
      const robots = machines
        .listRobots(db, loc.id)
        .filter((r) => roleOn(p, { organizationId: r.organizationId, locationId: r.locationId, robotId: r.id }) !== undefined);
      return { robots: robots.map(robotMessage) };
    },

    updateRobot(req, ctx) {
      const p = principalOf(ctx);
      const robot = robotFor(db, p, required(req.id, 'id'), 'write');
      const name = required(req.name, 'name').trim();
      const location = req.location ? locationFor(db, p, req.location, 'write') : locationFor(db, p, robot.locationId, 'write');
      const taken = machines.listRobots(db, location.id).find((r) => r.name === name && r.id !== robot.id);
      if (taken) throw alreadyExists(`a machine named ${name} already exists in location ${location.id}`);
      machines.updateRobot(db, robot.id, name, location.id);
      return { robot: robotMessage(machines.getRobot(db, robot.id) as machines.RobotRecord) };
    },

    deleteRobot(req, ctx) {
      const robot = robotFor(db, principalOf(ctx), req.id, 'write');
      machines.deleteRobot(db, robot.id);
      return {};
    },

    getRobotParts(req, ctx) {
      const robot = robotFor(db, principalOf(ctx), req.robotId, 'read');
      return { parts: machines.listParts(db, robot.id).map((p) => partMessage(p)) };
    },

    getRobotPart(req, ctx) {
      const part = partFor(db, principalOf(ctx), req.id, 'read');
      const robotConfigJson = part.configAsSent ? { robotConfigJson: part.config } : {};
      return { part: { ...partFields(part), robotConfig: encodedConfig(part), ...robotConfigJson }, configJson: part.config };
    },

    newRobotPart(req, ctx) {
      const robot = robotFor(db, principalOf(ctx), req.robotId, 'write');
      const name = required(req.partName, 'part_name').trim();
      if (machines.partNameTaken(db, robot.id, name)) throw alreadyExists(`machine ${robot.id} already has a part named ${name}`);
      return { partId: machines.insertPart(db, robot.id, name, backend.now()) };
    },

    deleteRobotPart(req, ctx) {
      const part = partFor(db, principalOf(ctx), req.partId, 'write');
      if (part.mainPart) throw failedPrecondition(`part ${part.id} is the main part of machine ${part.robotId} and cannot be deleted`);
      machines.deletePart(db, part.id);
      return {};
    },

    updateRobotPart(req, ctx) {
      const p = principalOf(ctx);
      const name = required(req.name, 'name').trim();
      const sent = sentConfig(req);
      const json = sent.json;
      // A config importing fragments is checked as its machine will run it.
      const result = validateMachineConfig(configToCheck(db, machines.getPart(db, req.id), json));
      if (result.errors.length > 0) throw invalidIssues(result.errors);
      const parsed = MachineConfigSchema.safeParse(json);
      if (!parsed.success)
        throw invalidArgument(
          `${sent.field}: ${schemaProblems(parsed.error.issues, json, { noun: 'field' })
            .map((p) => p.message)
            .join('; ')}`,
        );
      const config: MachineConfig = parsed.data;
      const lastKnown = req.lastKnownUpdate ? millisOf(req.lastKnownUpdate) : undefined;
      const written = db
        .transaction(() => {
          const part = partFor(db, p, req.id, 'write');
          if (lastKnown !== undefined && part.lastUpdated > lastKnown) {
            throw failedPrecondition(
              `machine part ${part.id} was updated at ${new Date(part.lastUpdated).toISOString()}, after last_known_update ` +
                `${new Date(lastKnown).toISOString()}; fetch the part again and reapply the change`,
            );
          }
          if (name !== part.name && machines.partNameTaken(db, part.robotId, name)) {
            throw alreadyExists(`machine ${part.robotId} already has a part named ${name}`);
          }
          const now = backend.now();
          // Modules a fragment brings are deployed like the part's own.
          const modules = resolvedModules(db, part, json, config);
          const plan = planDeployments(
            part.id,
            modules,
            deploymentsOfPart(db, part.id),
            moduleVersionsLookup(db, part.organizationId),
            now,
            partViamServerVersion(db, part.id, true),
          );
          const refused = plan.issues.filter((i) => i.severity === 'error');
          if (refused.length > 0) throw invalidIssues(refused);
          // Text as sent, a Struct as the service stores one; `config` is the typed view of the same document.
          const struct = encodeStruct(sortedKeys(json) as StructObject);
          const editedOn = machines.writePart(db, part, name, { json: sent.stored.text, asSent: sent.stored.asSent, struct }, now);
          recordPartEdit(db, part, editedOn, p.keyId);
          replaceDeployments(db, part.id, plan.deployments);
          return machines.getPart(db, part.id);
        })
        .immediate();
      if (!written) throw notFound(`machine part ${req.id} not found`);
      return { part: partMessage(written) };
    },

    getRobotPartHistory(req, ctx) {
      const part = partFor(db, principalOf(ctx), req.id, 'read');
      const query = historyQuery(req);
      const rows = partHistory(db, part.id, { ...query, ...(query.limit === undefined ? {} : { limit: query.limit + 1 }) });
      const shown = query.limit === undefined ? rows : rows.slice(0, query.limit);
      const last = shown[shown.length - 1];
      return {
        history: shown.map((h) => historyEntry(part, h)),
        nextPageToken: rows.length > shown.length && last ? String(last.seq) : '',
      };
    },

    deprecateRegistryItemVersion(req, ctx) {
      const { item, version } = ownedVersion(db, principalOf(ctx), req.itemId, req.version);
      setVersionDeprecation(db, item.itemId, version, req.message, backend.now());
      return {};
    },

    undeprecateRegistryItemVersion(req, ctx) {
      const { item, version } = ownedVersion(db, principalOf(ctx), req.itemId, req.version);
      setVersionDeprecation(db, item.itemId, version, undefined, backend.now());
      return {};
    },

    getModule(req, ctx) {
      const item = visibleRegistryItem(db, principalOf(ctx), required(req.moduleId, 'module_id'), 'module');
      return { module: registryModuleMessage(db, item, backend.services.sdk) };
    },

    getRegistryItem(req, ctx) {
      const p = principalOf(ctx);
      const itemId = required(req.itemId, 'item_id');
      if (!findRegistryItem(db, itemId)) {
        // Models that jobs trained are registry items too; jobs due to complete complete first.
        settleTrainingJobs(backend);
        const model = findTrainedModel(db, p, itemId);
        if (model) return { item: trainedModelMessage(model) };
      }
      return { item: registryItemMessage(db, visibleRegistryItem(db, p, itemId), backend.services.sdk) };
    },

    listRegistryItems(req, ctx) {
      const p = principalOf(ctx);
      if (req.organizationId) organizationFor(db, p, req.organizationId, 'read');
      settleTrainingJobs(backend);
      const listing = listRegistryItems(
        db,
        p,
        {
          ...(req.organizationId ? { organizationId: req.organizationId } : {}),
          types: req.types,
          visibilities: req.visibilities,
          statuses: req.statuses,
          ...(req.searchTerm === undefined ? {} : { searchTerm: req.searchTerm }),
          publicNamespaces: req.publicNamespaces,
        },
        backend.services.sdk,
      );
      return { items: listing };
    },

    createKey(req, ctx) {
      const p = principalOf(ctx);
      if (req.authorizations.length === 0) throw invalidArgument('authorizations: at least one authorization is required');
      const grants = req.authorizations.map((a, i) => grantFromAuthorization(db, p, a, `authorizations[${i}]`));
      const secret = generateApiKeySecret();
      const id = newId();
      const now = backend.now();
      accounts.insertApiKey(db, { id, name: req.name || new Date(now).toISOString(), ...hashApiKey(secret), createdOn: now }, grants);
      return { id, key: secret };
    },
  };
}

const ROLES = ['owner', 'operator'] as const;
const RESOURCE_TYPES = ['organization', 'location', 'robot'] as const;

/**
 * A grant from an `Authorization` (`authorization_type` "role", `authorization_id`
 * `<resource type>_<role>` or `<role>`); the caller must own the resource.
 */
function grantFromAuthorization(
  db: Backend['db'],
  p: Principal,
  a: { authorizationType: string; authorizationId: string; resourceType: string; resourceId: string; organizationId: string },
  path: string,
): accounts.Grant {
  if (a.authorizationType !== '' && a.authorizationType !== 'role') {
    throw invalidArgument(`${path}.authorization_type: unknown authorization type ${JSON.stringify(a.authorizationType)}; use "role"`);
  }
  const resourceType = RESOURCE_TYPES.find((t) => t === a.resourceType);
  if (!resourceType) throw invalidArgument(`${path}.resource_type: use organization, location or robot`);
  const roleText = a.authorizationId.startsWith(`${resourceType}_`) ? a.authorizationId.slice(resourceType.length + 1) : a.authorizationId;
  const role = ROLES.find((r) => r === roleText);
  if (!role) throw invalidArgument(`${path}.authorization_id: use ${resourceType}_owner or ${resourceType}_operator`);
  let organizationId: string;
  if (resourceType === 'organization') organizationId = organizationFor(db, p, a.resourceId, 'write').id;
  else if (resourceType === 'location') organizationId = locationFor(db, p, a.resourceId, 'write').organizationId;
  else organizationId = robotFor(db, p, a.resourceId, 'write').organizationId;
  if (a.organizationId !== '' && a.organizationId !== organizationId) {
    throw invalidArgument(`${path}.organization_id: ${a.resourceType} ${a.resourceId} belongs to organization ${organizationId}`);
  }
  if (resourceType === 'organization' && !isOrganizationOwner(p, organizationId)) {
    throw permissionDenied(`owner permission required on organization ${organizationId}`);
  }
  return { role, resourceType, resourceId: a.resourceId, organizationId };
}
