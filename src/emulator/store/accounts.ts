/**
 * Organizations, locations, API keys (stored as salted scrypt hashes) with their grants,
 * and access tokens (stored as SHA-256 hashes).
 */
import type { DefaultFragmentImport } from '../../domain/organization-defaults';
import type { Db } from '../db/database';
import { newId, stmt } from './statements';

export interface OrganizationRecord {
  readonly id: string;
  readonly name: string;
  readonly publicNamespace: string;
  readonly createdOn: number;
  /** The fragments every machine created in it starts with importing, in order. */
  readonly defaultFragments: readonly DefaultFragmentImport[];
}

export interface LocationRecord {
  readonly id: string;
  readonly organizationId: string;
  readonly name: string;
  readonly createdOn: number;
  /** The location it sits in; undefined for a top-level location. */
  readonly parentLocationId?: string;
}

/** What a key may do: a role on an organization, a location or a machine (`robot`). */
export type Role = 'owner' | 'operator';
export type ResourceType = 'organization' | 'location' | 'robot';
export interface Grant {
  readonly role: Role;
  readonly resourceType: ResourceType;
  readonly resourceId: string;
  readonly organizationId: string;
}

export interface ApiKeyRecord {
  readonly id: string;
  readonly name: string;
  readonly salt: Buffer;
  readonly hash: Buffer;
  readonly createdOn: number;
}

interface OrgRow {
  id: string;
  name: string;
  public_namespace: string;
  created_on: number;
  default_fragments: string;
}
const toOrg = (r: OrgRow): OrganizationRecord => ({
  id: r.id,
  name: r.name,
  publicNamespace: r.public_namespace,
  createdOn: r.created_on,
  defaultFragments: JSON.parse(r.default_fragments) as DefaultFragmentImport[],
});

interface LocationRow {
  id: string;
  organization_id: string;
  name: string;
  created_on: number;
  parent_location_id: string | null;
}
const toLocation = (r: LocationRow): LocationRecord => ({
  id: r.id,
  organizationId: r.organization_id,
  name: r.name,
  createdOn: r.created_on,
  ...(r.parent_location_id ? { parentLocationId: r.parent_location_id } : {}),
});

export function insertOrganization(db: Db, name: string, publicNamespace: string, now: number): OrganizationRecord {
  const org = { id: newId(), name, publicNamespace, createdOn: now, defaultFragments: [] };
  stmt<[string, string, string, number]>(db, 'INSERT INTO organizations (id, name, public_namespace, created_on) VALUES (?, ?, ?, ?)').run(
    org.id,
    name,
    publicNamespace,
    now,
  );
  return org;
}

export function getOrganization(db: Db, id: string): OrganizationRecord | undefined {
  const r = stmt<[string], OrgRow>(db, 'SELECT * FROM organizations WHERE id = ?').get(id);
  return r && toOrg(r);
}

/** Renames an organization and sets its default fragments (in order). */
export function updateOrganization(db: Db, id: string, name: string, defaultFragments: readonly DefaultFragmentImport[]): void {
  stmt<[string, string, string]>(db, 'UPDATE organizations SET name = ?, default_fragments = ? WHERE id = ?').run(
    name,
    JSON.stringify(defaultFragments),
    id,
  );
}

export function organizationByNamespace(db: Db, namespace: string): OrganizationRecord | undefined {
  const r = stmt<[string], OrgRow>(db, "SELECT * FROM organizations WHERE public_namespace = ? AND public_namespace <> ''").get(namespace);
  return r && toOrg(r);
}

/**
 * The organization that claimed `namespace` by publishing to it: a namespace no organization
 * has becomes, at its first publish, a namespace of the publishing key's organization.
 */
export function organizationByClaimedNamespace(db: Db, namespace: string): OrganizationRecord | undefined {
  const r = stmt<[string], OrgRow>(
    db,
    'SELECT organizations.* FROM claimed_namespaces JOIN organizations ON organizations.id = claimed_namespaces.organization_id WHERE claimed_namespaces.namespace = ?',
  ).get(namespace);
  return r && toOrg(r);
}

export function claimNamespace(db: Db, namespace: string, organizationId: string, now: number): void {
  stmt<[string, string, number]>(db, 'INSERT INTO claimed_namespaces (namespace, organization_id, claimed_on) VALUES (?, ?, ?)').run(
    namespace,
    organizationId,
    now,
  );
}

export function listOrganizations(db: Db, ids: readonly string[]): OrganizationRecord[] {
  return ids
    .map((id) => getOrganization(db, id))
    .filter((o): o is OrganizationRecord => o !== undefined)
    .sort((a, b) => a.createdOn - b.createdOn || a.id.localeCompare(b.id));
}

export function insertLocation(db: Db, organizationId: string, name: string, now: number, parentLocationId?: string): LocationRecord {
  const loc = { id: newId(), organizationId, name, createdOn: now, ...(parentLocationId ? { parentLocationId } : {}) };
  stmt<[string, string, string, number, string | null]>(
    db,
    'INSERT INTO locations (id, organization_id, name, created_on, parent_location_id) VALUES (?, ?, ?, ?, ?)',
  ).run(loc.id, organizationId, name, now, parentLocationId ?? null);
  return loc;
}

/** Renames a location and places it under `parentLocationId` (undefined: top level). */
export function updateLocation(db: Db, id: string, name: string, parentLocationId: string | undefined): void {
  stmt<[string, string | null, string]>(db, 'UPDATE locations SET name = ?, parent_location_id = ? WHERE id = ?').run(
    name,
    parentLocationId ?? null,
    id,
  );
}

export function deleteLocation(db: Db, id: string): void {
  stmt<[string]>(db, 'DELETE FROM locations WHERE id = ?').run(id);
}

/** The locations directly inside a location. */
export function childLocations(db: Db, id: string): LocationRecord[] {
  return stmt<[string], LocationRow>(db, 'SELECT * FROM locations WHERE parent_location_id = ? ORDER BY created_on, id')
    .all(id)
    .map(toLocation);
}

export function getLocation(db: Db, id: string): LocationRecord | undefined {
  const r = stmt<[string], LocationRow>(db, 'SELECT * FROM locations WHERE id = ?').get(id);
  return r && toLocation(r);
}

export function listLocations(db: Db, organizationId: string): LocationRecord[] {
  return stmt<[string], LocationRow>(db, 'SELECT * FROM locations WHERE organization_id = ? ORDER BY created_on, id')
    .all(organizationId)
    .map(toLocation);
}

export function insertApiKey(db: Db, key: ApiKeyRecord, grants: readonly Grant[]): void {
  db.transaction(() => {
    stmt<[string, string, Buffer, Buffer, number]>(
      db,
      'INSERT INTO api_keys (id, name, salt, hash, created_on) VALUES (?, ?, ?, ?, ?)',
    ).run(key.id, key.name, key.salt, key.hash, key.createdOn);
    const add = stmt<[string, string, string, string, string]>(
      db,
      'INSERT OR REPLACE INTO api_key_grants (key_id, role, resource_type, resource_id, organization_id) VALUES (?, ?, ?, ?, ?)',
    );
    for (const g of grants) add.run(key.id, g.role, g.resourceType, g.resourceId, g.organizationId);
  }).immediate();
}

export function getApiKey(db: Db, id: string): ApiKeyRecord | undefined {
  const r = stmt<[string], { id: string; name: string; salt: Buffer; hash: Buffer; created_on: number }>(
    db,
    'SELECT * FROM api_keys WHERE id = ?',
  ).get(id);
  return r && { id: r.id, name: r.name, salt: r.salt, hash: r.hash, createdOn: r.created_on };
}

/** The API keys with a grant in the organization, oldest first. */
export function keysOfOrganization(db: Db, organizationId: string): ApiKeyRecord[] {
  return stmt<[string], { id: string; name: string; salt: Buffer; hash: Buffer; created_on: number }>(
    db,
    'SELECT DISTINCT k.* FROM api_keys k JOIN api_key_grants g ON g.key_id = k.id WHERE g.organization_id = ? ORDER BY k.created_on, k.id',
  )
    .all(organizationId)
    .map((r) => ({ id: r.id, name: r.name, salt: r.salt, hash: r.hash, createdOn: r.created_on }));
}

export function grantsOf(db: Db, keyId: string): Grant[] {
  return stmt<[string], { role: Role; resource_type: ResourceType; resource_id: string; organization_id: string }>(
    db,
    'SELECT role, resource_type, resource_id, organization_id FROM api_key_grants WHERE key_id = ?',
  )
    .all(keyId)
    .map((r) => ({ role: r.role, resourceType: r.resource_type, resourceId: r.resource_id, organizationId: r.organization_id }));
}

/** Stores a token hash, dropping tokens that expired before `now`. */
export function insertAccessToken(db: Db, tokenHash: string, keyId: string, expiresAt: number, now: number): void {
  stmt<[number]>(db, 'DELETE FROM access_tokens WHERE expires_at < ?').run(now);
  stmt<[string, string, number]>(db, 'INSERT INTO access_tokens (token_hash, key_id, expires_at) VALUES (?, ?, ?)').run(
    tokenHash,
    keyId,
    expiresAt,
  );
}

export function accessTokenKey(db: Db, tokenHash: string): { keyId: string; expiresAt: number } | undefined {
  const r = stmt<[string], { key_id: string; expires_at: number }>(
    db,
    'SELECT key_id, expires_at FROM access_tokens WHERE token_hash = ?',
  ).get(tokenHash);
  return r && { keyId: r.key_id, expiresAt: r.expires_at };
}

/** A value of the emulator's own key/value table (e.g. seeding state). */
export function getMeta(db: Db, key: string): string | undefined {
  return stmt<[string], { value: string }>(db, 'SELECT value FROM emulator_meta WHERE key = ?').get(key)?.value;
}

export function setMeta(db: Db, key: string, value: string): void {
  stmt<[string, string]>(db, 'INSERT OR REPLACE INTO emulator_meta (key, value) VALUES (?, ?)').run(key, value);
}
