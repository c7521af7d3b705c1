/**
 * Who is calling (an API key and its grants) and what that allows. Roles: `owner` may read
 * and change, `operator` may read. A grant on an organization covers its locations and
 * machines; a grant on a location covers its machines.
 */
import type { Grant, Role } from '../store/accounts';

export interface Principal {
  readonly keyId: string;
  readonly grants: readonly Grant[];
}

/** A machine, location or organization, located in its organization tree. */
export interface Scope {
  readonly organizationId: string;
  readonly locationId?: string;
  readonly robotId?: string;
}

function better(a: Role | undefined, b: Role): Role {
  return a === 'owner' || b === 'owner' ? 'owner' : 'operator';
}

/** The strongest role the principal holds over the scope, if any. */
export function roleOn(p: Principal, scope: Scope): Role | undefined {
  let role: Role | undefined;
  for (const g of p.grants) {
    if (g.organizationId !== scope.organizationId) continue;
    const covers =
      g.resourceType === 'organization' ||
      (g.resourceType === 'location' && g.resourceId === scope.locationId) ||
      (g.resourceType === 'robot' && g.resourceId === scope.robotId);
    if (covers) role = better(role, g.role);
  }
  return role;
}

/** Whether the principal holds any grant inside the organization (it may know the organization exists). */
export function knowsOrganization(p: Principal, organizationId: string): boolean {
  return p.grants.some((g) => g.organizationId === organizationId);
}

/** Whether the principal owns the organization itself (ML training requires it). */
export function isOrganizationOwner(p: Principal, organizationId: string): boolean {
  return p.grants.some((g) => g.organizationId === organizationId && g.resourceType === 'organization' && g.role === 'owner');
}

/** The organizations the principal holds any grant in. */
export function organizationsOf(p: Principal): string[] {
  return [...new Set(p.grants.map((g) => g.organizationId))];
}

/** Locations granted directly (not through an organization grant). */
export function grantedLocations(p: Principal, organizationId: string): string[] {
  return p.grants.filter((g) => g.organizationId === organizationId && g.resourceType === 'location').map((g) => g.resourceId);
}

/** Machines granted directly. */
export function grantedRobots(p: Principal, organizationId: string): string[] {
  return p.grants.filter((g) => g.organizationId === organizationId && g.resourceType === 'robot').map((g) => g.resourceId);
}
