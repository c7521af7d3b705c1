/** The AppService's calls on machines and their parts: create, read, rename or move, delete, and write a part's config. */
import type { ServiceImpl } from '@connectrpc/connect';
import { MachineConfigSchema, validateMachineConfig, type MachineConfig } from '../../domain';
import { schemaProblems } from '../../domain/schema-issues';
import type { AppWireServiceType } from '../../api/services';
import { encodeStruct, type StructObject } from '../../api/struct-codec';
import { knowsOrganization, roleOn } from '../auth/principal';
import { configToCheck, resolvedModules } from '../logic/fragment-resolution';
import { planDeployments } from '../logic/deployments';
import { sortedKeys } from '../logic/stored-config';
import * as accounts from '../store/accounts';
import { deploymentsOfPart, replaceDeployments } from '../store/deployments';
import * as machines from '../store/machines';
import { partHistory, recordPartEdit } from '../store/part-history';
import { partViamServerVersion } from '../store/server-versions';
import { locationFor, partFor, robotFor } from './access';
import { encodedConfig, historyEntry, partFields, robotMessage } from './app-messages';
import { withRobotConfigJson } from '../../api/robot-part-config-json';
import { millisOf, principalOf, type Backend } from './context';
import { alreadyExists, failedPrecondition, invalidArgument, invalidIssues, notFound, required } from './errors';
import { newMachineConfig } from './organization-settings';
import { historyQuery } from './part-history-query';
import { moduleVersionsLookup } from './registry';
import { sentConfig } from './sent-config';

type RobotHandlers = Pick<
  ServiceImpl<AppWireServiceType>,
  | 'newRobot'
  | 'getRobot'
  | 'listRobots'
  | 'updateRobot'
  | 'deleteRobot'
  | 'getRobotParts'
  | 'getRobotPart'
  | 'newRobotPart'
  | 'deleteRobotPart'
  | 'updateRobotPart'
  | 'getRobotPartHistory'
>;

/** A RobotPart of the SDK's messages, with `robot_config_json` (which they lack) when the config was stored from text. */
function partMessage(backend: Backend, part: machines.PartRecord) {
  const { sdk } = backend.services;
  const message = new sdk.appApi.RobotPart({ ...partFields(backend, part), robotConfig: sdk.Struct.fromBinary(encodedConfig(part)) });
  return part.configAsSent ? withRobotConfigJson(message, part.config) : message;
}

export function robotHandlers(backend: Backend): RobotHandlers {
  const { db } = backend;
  return {
    newRobot(req, ctx) {
      const loc = locationFor(db, principalOf(ctx), req.location, 'write');
      const name = required(req.name, 'name').trim();
      if (machines.robotNameTaken(db, loc.id, name)) throw alreadyExists(`a machine named ${name} already exists in location ${loc.id}`);
      // A new machine starts with its organization's default fragments imported.
      const config = newMachineConfig(accounts.getOrganization(db, loc.organizationId));
      return { id: machines.insertRobot(db, loc.id, name, backend.now(), config).robotId };
    },

    getRobot(req, ctx) {
      return { robot: robotMessage(backend, robotFor(db, principalOf(ctx), req.id, 'read')) };
    },

    listRobots(req, ctx) {
      const p = principalOf(ctx);
      const loc = accounts.getLocation(db, required(req.locationId, 'location_id'));
      if (!loc || !knowsOrganization(p, loc.organizationId)) throw notFound(`location ${req.locationId} not found`);
      const robots = machines
        .listRobots(db, loc.id)
        .filter((r) => roleOn(p, { organizationId: r.organizationId, locationId: r.locationId, robotId: r.id }) !== undefined);
      return { robots: robots.map((r) => robotMessage(backend, r)) };
    },

    updateRobot(req, ctx) {
      const p = principalOf(ctx);
      const robot = robotFor(db, p, required(req.id, 'id'), 'write');
      const name = required(req.name, 'name').trim();
      const location = req.location ? locationFor(db, p, req.location, 'write') : locationFor(db, p, robot.locationId, 'write');
      const taken = machines.listRobots(db, location.id).find((r) => r.name === name && r.id !== robot.id);
      if (taken) throw alreadyExists(`a machine named ${name} already exists in location ${location.id}`);
      machines.updateRobot(db, robot.id, name, location.id);
      return { robot: robotMessage(backend, machines.getRobot(db, robot.id) as machines.RobotRecord) };
    },

    deleteRobot(req, ctx) {
      const robot = robotFor(db, principalOf(ctx), req.id, 'write');
      machines.deleteRobot(db, robot.id);
      return {};
    },

    getRobotParts(req, ctx) {
      const robot = robotFor(db, principalOf(ctx), req.robotId, 'read');
      return { parts: machines.listParts(db, robot.id).map((p) => partMessage(backend, p)) };
    },

    getRobotPart(req, ctx) {
      const part = partFor(db, principalOf(ctx), req.id, 'read');
      const robotConfigJson = part.configAsSent ? { robotConfigJson: part.config } : {};
      return { part: { ...partFields(backend, part), robotConfig: encodedConfig(part), ...robotConfigJson }, configJson: part.config };
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
      return { part: partMessage(backend, written) };
    },

    getRobotPartHistory(req, ctx) {
      const part = partFor(db, principalOf(ctx), req.id, 'read');
      const query = historyQuery(req);
      const rows = partHistory(db, part.id, { ...query, ...(query.limit === undefined ? {} : { limit: query.limit + 1 }) });
      const shown = query.limit === undefined ? rows : rows.slice(0, query.limit);
      const last = shown[shown.length - 1];
      return {
        history: shown.map((h) => historyEntry(backend, part, h)),
        nextPageToken: rows.length > shown.length && last ? String(last.seq) : '',
      };
    },
  };
}
