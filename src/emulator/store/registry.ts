/**
 * The registry: modules and training scripts (`<namespace>:<name>`), each with versions.
 * Module versions list the models they provide.
 */
import { sortBySemver, type ModelFramework, type ModelType, type ModuleVersion } from '../../domain';
import type { Db } from '../db/database';
import { stmt } from './statements';

export type RegistryItemType = 'module' | 'ml_training';

export interface RegistryItemRecord {
  readonly itemId: string;
  readonly organizationId: string;
  readonly namespace: string;
  readonly name: string;
  readonly type: RegistryItemType;
  readonly visibility: 'public' | 'private';
  readonly description: string;
  /** Training scripts: what the models they train are. */
  readonly modelType: ModelType;
  readonly modelFramework: ModelFramework;
  readonly createdOn: number;
  readonly updatedOn: number;
}

export interface RegistryVersionRecord extends ModuleVersion {
  readonly createdOn: number;
  /** When it was deprecated (ms), if it is. */
  readonly deprecatedAt?: number;
}

interface ItemRow {
  item_id: string;
  organization_id: string;
  namespace: string;
  name: string;
  type: RegistryItemType;
  visibility: 'public' | 'private';
  description: string;
  model_type: number;
  model_framework: number;
  created_on: number;
  updated_on: number;
}
const toItem = (r: ItemRow): RegistryItemRecord => ({
  itemId: r.item_id,
  organizationId: r.organization_id,
  namespace: r.namespace,
  name: r.name,
  type: r.type,
  visibility: r.visibility,
  description: r.description,
  modelType: r.model_type as ModelType,
  modelFramework: r.model_framework as ModelFramework,
  createdOn: r.created_on,
  updatedOn: r.updated_on,
});

export function getRegistryItem(db: Db, itemId: string): RegistryItemRecord | undefined {
  const r = stmt<[string], ItemRow>(db, 'SELECT * FROM registry_items WHERE item_id = ?').get(itemId);
  return r && toItem(r);
}

/** Every item, by id. */
export function allRegistryItems(db: Db): RegistryItemRecord[] {
  return stmt<[], ItemRow>(db, 'SELECT * FROM registry_items ORDER BY item_id').all().map(toItem);
}

export function insertRegistryItem(db: Db, item: RegistryItemRecord): void {
  stmt<[string, string, string, string, string, string, string, number, number, number, number]>(
    db,
    `INSERT INTO registry_items (item_id, organization_id, namespace, name, type, visibility, description,
       model_type, model_framework, created_on, updated_on)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    item.itemId,
    item.organizationId,
    item.namespace,
    item.name,
    item.type,
    item.visibility,
    item.description,
    item.modelType,
    item.modelFramework,
    item.createdOn,
    item.updatedOn,
  );
}

export function insertRegistryVersion(db: Db, itemId: string, version: ModuleVersion, now: number): void {
  stmt<[string, string, string, number]>(
    db,
    'INSERT INTO registry_versions (item_id, version, models, created_on) VALUES (?, ?, ?, ?)',
  ).run(itemId, version.version, JSON.stringify(version.models), now);
  stmt<[number, string]>(db, 'UPDATE registry_items SET updated_on = ? WHERE item_id = ?').run(now, itemId);
}

/** The versions of an item, ascending by semver (prereleases before their release), with what the registry says of each. */
export function registryVersions(db: Db, itemId: string): RegistryVersionRecord[] {
  const rows = stmt<[string], VersionRow>(
    db,
    `SELECT version, models, created_on, deprecated_at, deprecated_message, min_viam_server_version
       FROM registry_versions WHERE item_id = ?`,
  )
    .all(itemId)
    .map(toVersion);
  return sortBySemver(rows, (r) => r.version);
}

interface VersionRow {
  version: string;
  models: string;
  created_on: number;
  deprecated_at: number | null;
  deprecated_message: string;
  min_viam_server_version: string;
}

function toVersion(r: VersionRow): RegistryVersionRecord {
  return {
    version: r.version,
    models: JSON.parse(r.models) as ModuleVersion['models'],
    createdOn: r.created_on,
    ...(r.deprecated_at === null ? {} : { deprecated: r.deprecated_message, deprecatedAt: r.deprecated_at }),
    ...(r.min_viam_server_version === '' ? {} : { minViamServerVersion: r.min_viam_server_version }),
  };
}

/** Marks a version deprecated at `now` with `message`, or not (`message` undefined). */
export function setVersionDeprecation(db: Db, itemId: string, version: string, message: string | undefined, now: number): void {
  stmt<[number | null, string, string, string]>(
    db,
    'UPDATE registry_versions SET deprecated_at = ?, deprecated_message = ? WHERE item_id = ? AND version = ?',
  ).run(message === undefined ? null : now, message ?? '', itemId, version);
}

/** Sets the oldest viam-server a version runs on ('' for none). */
export function setVersionMinViamServer(db: Db, itemId: string, version: string, minimum: string): void {
  stmt<[string, string, string]>(db, 'UPDATE registry_versions SET min_viam_server_version = ? WHERE item_id = ? AND version = ?').run(
    minimum,
    itemId,
    version,
  );
}
