/**
 * Looks a resource up on behalf of a caller. A resource in an organization the caller holds
 * no grant in answers NotFound (its existence is not revealed); a known resource the caller
 * may not use (or change) answers PermissionDenied.
 */
import { isOrganizationOwner, knowsOrganization, roleOn, type Principal, type Scope } from '../auth/principal';
import type { Db } from '../db/database';
import { getLocation, getOrganization, type LocationRecord, type OrganizationRecord } from '../store/accounts';
import { getDataset, type DatasetRecord } from '../store/datasets';
import { getPart, getRobot, type PartRecord, type RobotRecord } from '../store/machines';
import { notFound, permissionDenied, required } from './errors';

/** `read` needs any role over the resource, `write` needs owner. */
export type Need = 'read' | 'write';

function check(p: Principal, scope: Scope, need: Need, what: string): void {
  const role = roleOn(p, scope);
  if (role === undefined || (need === 'write' && role !== 'owner')) {
    throw permissionDenied(`${need === 'write' ? 'owner' : 'read'} permission required on ${what}`);
  }
}

export function organizationFor(db: Db, p: Principal, id: string, need: Need): OrganizationRecord {
  required(id, 'organization_id');
  const org = getOrganization(db, id);
  if (!org || !knowsOrganization(p, id)) throw permissionDenied(`no permission on organization ${id}`);
  check(p, { organizationId: id }, need, `organization ${id}`);
  return org;
}

export function locationFor(db: Db, p: Principal, id: string, need: Need): LocationRecord {
  required(id, 'location_id');
  const loc = getLocation(db, id);
  if (!loc || !knowsOrganization(p, loc.organizationId)) throw notFound(`location ${id} not found`);
  check(p, { organizationId: loc.organizationId, locationId: loc.id }, need, `location ${id}`);
  return loc;
}

export function robotFor(db: Db, p: Principal, id: string, need: Need): RobotRecord {
  required(id, 'id');
  const robot = getRobot(db, id);
  if (!robot || !knowsOrganization(p, robot.organizationId)) throw notFound(`machine ${id} not found`);
  check(p, { organizationId: robot.organizationId, locationId: robot.locationId, robotId: robot.id }, need, `machine ${id}`);
  return robot;
}

export function partFor(db: Db, p: Principal, id: string, need: Need): PartRecord {
  required(id, 'id');
  const part = getPart(db, id);
  if (!part || !knowsOrganization(p, part.organizationId)) throw notFound(`machine part ${id} not found`);
  check(p, { organizationId: part.organizationId, locationId: part.locationId, robotId: part.robotId }, need, `machine part ${id}`);
  return part;
}

/** Datasets belong to the organization: reading needs a role on it, changing needs owner. */
export function datasetFor(db: Db, p: Principal, id: string, need: Need): DatasetRecord {
  required(id, 'id');
  const ds = getDataset(db, id);
  if (!ds || !knowsOrganization(p, ds.organizationId)) throw notFound(`dataset ${id} not found`);
  check(p, { organizationId: ds.organizationId }, need, `organization ${ds.organizationId}`);
  return ds;
}

/** ML training needs owner permission on the organization itself. */
export function requireTrainingOwner(p: Principal, organizationId: string): void {
  required(organizationId, 'organization_id');
  if (!isOrganizationOwner(p, organizationId)) {
    throw permissionDenied(`organization owner permission required on organization ${organizationId} to use ML training`);
  }
}
