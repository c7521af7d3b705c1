/**
 * The part of viam.app.v1.AppService fleetform needs: organizations, locations, machines
 * (the service's robots), their parts and configs, and the registry. Reads and guarded
 * part updates are retried on transient errors; creates and deletes run once.
 */
import type { Sdk } from '../sdk';
import { configText } from '../../domain/config-text';
import { sortBySemver } from '../../domain/version-policy';
import { robotConfigJsonOf } from '../robot-part-config-json';
import { decodeStruct } from '../struct-codec';
import type { AppWireServiceType } from '../services';
import type { GetRobotPartVersionReply, PartVersionServiceType } from '../part-version-probe';
import type { Invoker } from './call';
import type { PlainCall } from './plain-unary';
import { machineOf, machinePartOf, moduleVersionStatusOf, namedOf, registryItemOf, registryModuleOf, viamServerVersionOf } from './convert';
import { ModuleVersionStatus as ModuleVersionStatusMessage } from '../own-messages';
import { ServiceError } from './errors';
import type { Location, Machine, MachinePart, Organization, RegistryItem, RegistryModule } from './types';
import { createFragmentClient, type FragmentClient } from './fragment-client';
import type { DefaultFragmentImport } from '../../domain/organization-defaults';
import { defaultImportsOfList, fragmentImportList } from '../default-fragments';
import type { Organization as OrganizationMessage } from '../generated/viam/app/v1/organization_defaults_pb';

/** A location as the location kind reads it: where it sits and which organization owns it. */
export interface LocationDetail extends Location {
  /** The location it sits in; empty for a top-level location. */
  readonly parentLocationId: string;
  /** The organization that owns it (its primary organization). */
  readonly organizationId: string;
}

/** An organization with the fragments every machine created in it starts with importing. */
export interface OrganizationDetail extends Organization {
  /** Its default fragments, in the order the service lists them (none: an empty list). */
  readonly defaultFragments: readonly DefaultFragmentImport[];
}

/** Machines, parts, fragments and the registry. */
export interface AppClient extends FragmentClient {
  listOrganizations(): Promise<Organization[]>;
  /** An organization with its default fragments. */
  getOrganization(organizationId: string): Promise<OrganizationDetail>;
  /** Sets the organization's default fragments (an empty list clears them); its other settings stay as they are. */
  setDefaultFragments(organizationId: string, imports: readonly DefaultFragmentImport[]): Promise<OrganizationDetail>;
  /** The organization's locations, nested ones included, each with where it sits. */
  listLocations(organizationId: string): Promise<LocationDetail[]>;
  /** Creates a location, inside `parentLocationId` when given. */
  createLocation(organizationId: string, name: string, parentLocationId?: string): Promise<LocationDetail>;
  getLocation(id: string): Promise<LocationDetail>;
  /** Renames a location and places it under `parentLocationId` (empty: the top level), in place. */
  updateLocation(id: string, name: string, parentLocationId: string): Promise<LocationDetail>;
  /** Deletes a location; the service refuses one that still holds machines. */
  deleteLocation(id: string): Promise<void>;
  /** Creates a machine (with its main part); resolves to the machine id. */
  newMachine(name: string, locationId: string): Promise<string>;
  getMachine(id: string): Promise<Machine>;
  listMachines(locationId: string): Promise<Machine[]>;
  /** Renames a machine (and moves it to `locationId`) in place: its id and parts stay. */
  updateMachine(id: string, name: string, locationId: string): Promise<Machine>;
  deleteMachine(id: string): Promise<void>;
  getMachineParts(machineId: string): Promise<MachinePart[]>;
  getMachinePart(partId: string): Promise<MachinePart>;
  /**
   * The part's `last_updated` alone (undefined when the service gives none), read from
   * GetRobotPart's answer with its config skipped, never decoded.
   */
  getMachinePartVersion(partId: string): Promise<Date | undefined>;
  /** Adds a part (not the main one, with an empty config) to a machine; resolves to the part id. */
  newMachinePart(machineId: string, name: string): Promise<string>;
  /** Deletes a part other than the main one. */
  deleteMachinePart(partId: string): Promise<void>;
  /**
   * Replaces the part's name and config, sent as JSON text (`robot_config_json`, stored as
   * sent: key order and integers kept). With `lastKnownUpdate` (the part's `lastUpdated`
   * as read) the service refuses the write if the part changed since; such a guarded
   * write is also retried on transient errors. `readFrom` are the texts the config was read
   * from (a part's `configJson`): a number of the config that is a double of one of their
   * integers above 2^53 is written as that integer.
   */
  updateMachinePart(
    partId: string,
    name: string,
    config: Record<string, unknown>,
    lastKnownUpdate?: Date,
    readFrom?: readonly string[],
  ): Promise<MachinePart>;
  /** A module by `namespace:name` (or `orgid:name`) with its versions ascending. */
  getModule(moduleId: string): Promise<RegistryModule>;
  /** A registry item (module or training script) with its version strings ascending; a module's with what the registry says of each version. */
  getRegistryItem(itemId: string): Promise<RegistryItem>;
  /** The viam-server version each part of the organization's machines (of one location, when given) reports, by part id (parts that report none left out). */
  viamServerVersions(organizationId: string, locationId?: string): Promise<Map<string, string>>;
}

type PartVersionMethod = PartVersionServiceType['methods']['getRobotPartVersion'];

/**
 * The app client over `call` (and `probe` for parts' versions, tried first through
 * `plainProbe` when there is one); `sdk` supplies the Struct and Timestamp classes of its
 * messages.
 */
export function createAppClient(
  call: Invoker<AppWireServiceType>,
  probe: Invoker<PartVersionServiceType>,
  sdk: Pick<Sdk, 'Struct' | 'Timestamp'>,
  plainProbe?: PlainCall<InstanceType<PartVersionMethod['I']>, GetRobotPartVersionReply>,
): AppClient {
  const missing = (method: string, what: string): ServiceError =>
    new ServiceError('UNKNOWN', `AppService.${method}`, `the response has no ${what}`);

  return {
    ...createFragmentClient(call),

    async listOrganizations() {
      const res = await call('listOrganizations', true, (c, o) => c.listOrganizations({}, o));
      return res.organizations.map(namedOf);
    },

    async getOrganization(organizationId) {
      const res = await call('getOrganization', true, (c, o) => c.getOrganization({ organizationId }, o));
      if (res.organization === undefined) throw missing('GetOrganization', 'organization');
      return organizationDetailOf(res.organization);
    },

    async setDefaultFragments(organizationId, imports) {
      // The whole list is sent: setting it again changes nothing, so the call is safe to retry.
      const defaultFragments = fragmentImportList(imports);
      const res = await call('updateOrganization', true, (c, o) => c.updateOrganization({ organizationId, defaultFragments }, o));
      if (res.organization === undefined) throw missing('UpdateOrganization', 'organization');
      return organizationDetailOf(res.organization);
    },

    async listLocations(organizationId) {
      const res = await call('listLocations', true, (c, o) => c.listLocations({ organizationId }, o));
      return res.locations.map(locationDetailOf);
    },

    async createLocation(organizationId, name, parentLocationId) {
      const res = await call('createLocation', false, (c, o) =>
        c.createLocation({ organizationId, name, ...(parentLocationId ? { parentLocationId } : {}) }, o),
      );
      if (res.location === undefined) throw missing('CreateLocation', 'location');
      return locationDetailOf(res.location);
    },

    async getLocation(id) {
      const res = await call('getLocation', true, (c, o) => c.getLocation({ locationId: id }, o));
      if (res.location === undefined) throw missing('GetLocation', 'location');
      return locationDetailOf(res.location);
    },

    async updateLocation(id, name, parentLocationId) {
      // Setting the same name and parent again changes nothing: safe to retry.
      const res = await call('updateLocation', true, (c, o) => c.updateLocation({ locationId: id, name, parentLocationId }, o));
      if (res.location === undefined) throw missing('UpdateLocation', 'location');
      return locationDetailOf(res.location);
    },

    async deleteLocation(id) {
      await call('deleteLocation', false, (c, o) => c.deleteLocation({ locationId: id }, o));
    },

    async newMachine(name, locationId) {
      const res = await call('newRobot', false, (c, o) => c.newRobot({ name, location: locationId }, o));
      return res.id;
    },

    async getMachine(id) {
      const res = await call('getRobot', true, (c, o) => c.getRobot({ id }, o));
      if (res.robot === undefined) throw missing('GetRobot', 'robot');
      return machineOf(res.robot);
    },

    async listMachines(locationId) {
      const res = await call('listRobots', true, (c, o) => c.listRobots({ locationId }, o));
      return res.robots.map(machineOf);
    },

    async updateMachine(id, name, locationId) {
      // Setting the same name and location again changes nothing: safe to retry.
      const res = await call('updateRobot', true, (c, o) => c.updateRobot({ id, name, location: locationId }, o));
      if (res.robot === undefined) throw missing('UpdateRobot', 'robot');
      return machineOf(res.robot);
    },

    async deleteMachine(id) {
      await call('deleteRobot', false, (c, o) => c.deleteRobot({ id }, o));
    },

    async getMachineParts(machineId) {
      const res = await call('getRobotParts', true, (c, o) => c.getRobotParts({ robotId: machineId }, o));
      return res.parts.map((p) => machinePartOf(p, robotConfigJsonOf(p), robotConfigJsonOf(p)));
    },

    async getMachinePart(partId) {
      const res = await call('getRobotPart', true, (c, o) => c.getRobotPart({ id: partId }, o));
      if (res.part === undefined) throw missing('GetRobotPart', 'part');
      // The config comes twice: parsed from config_json, the Struct decoded only without it.
      const { robotConfig, ...part } = res.part;
      const text = res.configJson || part.robotConfigJson;
      const struct = text || robotConfig === undefined ? undefined : { toJson: () => decodeStruct(robotConfig) };
      return machinePartOf({ ...part, robotConfig: struct }, text);
    },

    async getMachinePartVersion(partId) {
      const res =
        (await plainProbe?.({ id: partId })) ??
        (await probe('getRobotPartVersion', true, (c, o) => c.getRobotPartVersion({ id: partId }, o)));
      if (res.part === undefined) throw missing('GetRobotPart', 'part');
      return res.part.lastUpdated?.toDate();
    },

    async newMachinePart(machineId, name) {
      const res = await call('newRobotPart', false, (c, o) => c.newRobotPart({ robotId: machineId, partName: name }, o));
      return res.partId;
    },

    async deleteMachinePart(partId) {
      await call('deleteRobotPart', false, (c, o) => c.deleteRobotPart({ partId }, o));
    },

    async updateMachinePart(partId, name, config, lastKnownUpdate, readFrom) {
      // The text alone, as the official CLI sends it: a Struct would be stored with its keys
      // sorted and its numbers as doubles.
      const robotConfigJson = configText(config, readFrom);
      const guard = lastKnownUpdate === undefined ? undefined : sdk.Timestamp.fromDate(lastKnownUpdate);
      const res = await call('updateRobotPart', guard !== undefined, (c, o) =>
        c.updateRobotPart({ id: partId, name, robotConfigJson, lastKnownUpdate: guard }, o),
      );
      if (res.part === undefined) throw missing('UpdateRobotPart', 'part');
      return machinePartOf(res.part, robotConfigJsonOf(res.part), robotConfigJsonOf(res.part));
    },

    async getModule(moduleId) {
      const res = await call('getModule', true, (c, o) => c.getModule({ moduleId }, o));
      if (res.module === undefined) throw missing('GetModule', 'module');
      return registryModuleOf(res.module);
    },

    async getRegistryItem(itemId) {
      const res = await call('getRegistryItem', true, (c, o) => c.getRegistryItem({ itemId }, o));
      if (res.item === undefined) throw missing('GetRegistryItem', 'item');
      const item = registryItemOf(res.item);
      const md = res.item.metadata;
      if (md.case !== 'moduleMetadata') return item;
      // The SDK's ModuleVersion keeps fields 8 and 9 as unknown fields: read again through a message that has them.
      const statuses = md.value.versions.map((v) =>
        moduleVersionStatusOf(ModuleVersionStatusMessage.fromBinary(v.toBinary(), { readUnknownFields: false })),
      );
      return { ...item, moduleVersions: sortBySemver(statuses, (v) => v.version) };
    },

    async viamServerVersions(organizationId, locationId) {
      const res = await call('listMachineSummaries', true, (c, o) =>
        c.listMachineSummaries({ organizationId, locationIds: locationId ? [locationId] : [] }, o),
      );
      const out = new Map<string, string>();
      for (const location of res.locationSummaries)
        for (const machine of location.machineSummaries)
          for (const part of machine.partSummaries) {
            const version = viamServerVersionOf(part.viamServerVersion);
            if (version !== undefined) out.set(part.partId, version);
          }
      return out;
    },
  };
}

/** viam.app.v1.Organization with its default fragments. */
function organizationDetailOf(m: OrganizationMessage): OrganizationDetail {
  return { id: m.id, name: m.name, defaultFragments: defaultImportsOfList(m.defaultFragments) };
}

/** viam.app.v1.Location: its owner is the organization marked primary (else the first listed). */
function locationDetailOf(m: {
  id: string;
  name: string;
  parentLocationId: string;
  organizations: readonly { organizationId: string; primary: boolean }[];
}): LocationDetail {
  const owner = m.organizations.find((o) => o.primary) ?? m.organizations[0];
  return { ...namedOf(m), parentLocationId: m.parentLocationId, organizationId: owner?.organizationId ?? '' };
}
