/** The AppService's calls on locations: list, create, read, move or rename, and delete. */
import type { ServiceImpl } from '@connectrpc/connect';
import type { AppWireServiceType } from '../../api/services';
import { grantedLocations, grantedRobots, knowsOrganization, roleOn, type Principal } from '../auth/principal';
import * as accounts from '../store/accounts';
import * as machines from '../store/machines';
import { locationFor, organizationFor } from './access';
import { locationMessage } from './app-messages';
import { principalOf, type Backend } from './context';
import { failedPrecondition, invalidArgument, permissionDenied, required } from './errors';

type LocationHandlers = Pick<
  ServiceImpl<AppWireServiceType>,
  'listLocations' | 'createLocation' | 'getLocation' | 'updateLocation' | 'deleteLocation'
>;

type Db = Backend['db'];

/** The location a location is to sit in: one of the same organization the caller may write to. */
function parentLocation(db: Db, p: Principal, organizationId: string, id: string): accounts.LocationRecord {
  const parent = accounts.getLocation(db, id);
  if (!parent || parent.organizationId !== organizationId) {
    throw invalidArgument(`parent_location_id: organization ${organizationId} has no location ${id}`);
  }
  return locationFor(db, p, parent.id, 'write');
}

/** A location's id and those of the locations it sits in, innermost first. */
function locationAncestry(db: Db, id: string): string[] {
  const chain: string[] = [];
  for (let at: string | undefined = id; at !== undefined && !chain.includes(at); at = accounts.getLocation(db, at)?.parentLocationId)
    chain.push(at);
  return chain;
}

/** Locations of an organization the caller can see. */
function visibleLocations(db: Db, p: Principal, orgId: string): accounts.LocationRecord[] {
  const all = accounts.listLocations(db, orgId);
  if (roleOn(p, { organizationId: orgId }) !== undefined) return all;
  const direct = new Set(grantedLocations(p, orgId));
  for (const robotId of grantedRobots(p, orgId)) {
    const r = machines.getRobot(db, robotId);
    if (r) direct.add(r.locationId);
  }
  return all.filter((l) => direct.has(l.id));
}

export function locationHandlers(backend: Backend): LocationHandlers {
  const { db } = backend;
  return {
    listLocations(req, ctx) {
      const p = principalOf(ctx);
      required(req.organizationId, 'organization_id');
      if (!accounts.getOrganization(db, req.organizationId) || !knowsOrganization(p, req.organizationId)) {
        throw permissionDenied(`no permission on organization ${req.organizationId}`);
      }
      return { locations: visibleLocations(db, p, req.organizationId).map((l) => locationMessage(backend, l)) };
    },

    createLocation(req, ctx) {
      const p = principalOf(ctx);
      const org = organizationFor(db, p, req.organizationId, 'write');
      const name = required(req.name, 'name').trim();
      const parent = req.parentLocationId ? parentLocation(db, p, org.id, req.parentLocationId) : undefined;
      return { location: locationMessage(backend, accounts.insertLocation(db, org.id, name, backend.now(), parent?.id)) };
    },

    getLocation(req, ctx) {
      return { location: locationMessage(backend, locationFor(db, principalOf(ctx), req.locationId, 'read')) };
    },

    updateLocation(req, ctx) {
      const p = principalOf(ctx);
      const loc = locationFor(db, p, req.locationId, 'write');
      const name = req.name === undefined ? loc.name : req.name.trim();
      if (name === '') throw invalidArgument('name: a location needs a name (leave name out to keep it)');
      // Unset keeps the parent; the empty string moves the location to the top level.
      let parentId = loc.parentLocationId;
      if (req.parentLocationId !== undefined) {
        parentId = req.parentLocationId === '' ? undefined : parentLocation(db, p, loc.organizationId, req.parentLocationId).id;
        if (parentId !== undefined && locationAncestry(db, parentId).includes(loc.id)) {
          throw invalidArgument(`parent_location_id: location ${parentId} is ${loc.id} or inside it; a location cannot sit inside itself`);
        }
      }
      accounts.updateLocation(db, loc.id, name, parentId);
      return { location: locationMessage(backend, accounts.getLocation(db, loc.id) as accounts.LocationRecord) };
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
  };
}
