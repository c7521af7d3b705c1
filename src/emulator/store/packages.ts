/**
 * Registry packages of an organization, one row per version: those uploaded through
 * CreatePackage and, as `ml_model` packages, the models its completed training jobs
 * produced. A package's id is `<organization id>/<name>`.
 */
import type { Db } from '../db/database';
import { trainedModelNames, trainedModelVersions } from './jobs';
import { stmt } from './statements';

/** Package types as the machine config writes them (`ml_training` is the registry's own). */
export type StoredPackageType = 'archive' | 'ml_model' | 'module' | 'slam_map' | 'ml_training';

export interface StoredFile {
  readonly name: string;
  readonly size: number;
  readonly isDirectory?: boolean;
}

/** One version of a package. */
export interface PackageVersionRecord {
  readonly organizationId: string;
  readonly name: string;
  readonly version: string;
  readonly type: StoredPackageType;
  readonly platform: string;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly files: readonly StoredFile[];
  readonly size: number;
  readonly checksum: string;
  readonly createdOn: number;
  /** Made by a training job, not uploaded (it has no contents here). */
  readonly trained: boolean;
}

interface Row {
  organization_id: string;
  name: string;
  version: string;
  type: string;
  platform: string;
  metadata: string;
  files: string;
  size: number;
  checksum: string;
  created_on: number;
}

const COLUMNS = 'organization_id, name, version, type, platform, metadata, files, size, checksum, created_on';

const toRecord = (r: Row): PackageVersionRecord => ({
  organizationId: r.organization_id,
  name: r.name,
  version: r.version,
  type: r.type as StoredPackageType,
  platform: r.platform,
  metadata: JSON.parse(r.metadata) as Record<string, unknown>,
  files: JSON.parse(r.files) as StoredFile[],
  size: r.size,
  checksum: r.checksum,
  createdOn: r.created_on,
  trained: false,
});

/** An uploaded package version, its contents included. */
export interface NewPackageVersion extends Omit<PackageVersionRecord, 'trained' | 'size' | 'createdOn'> {
  readonly contents: Uint8Array;
}

/** Stores an uploaded version; false when that version of the package exists already. */
export function insertPackageVersion(db: Db, p: NewPackageVersion, now: number): boolean {
  const result = stmt(db, `INSERT OR IGNORE INTO packages (${COLUMNS}, contents) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
    p.organizationId,
    p.name,
    p.version,
    p.type,
    p.platform,
    JSON.stringify(p.metadata),
    JSON.stringify(p.files),
    p.contents.byteLength,
    p.checksum,
    now,
    p.contents,
  );
  return result.changes === 1;
}

function trainedVersions(db: Db, organizationId: string, name: string): PackageVersionRecord[] {
  return trainedModelVersions(db, organizationId, name).map((m) => ({
    organizationId,
    name,
    version: m.modelVersion,
    type: 'ml_model',
    platform: '',
    metadata: { model_type: m.modelType, model_framework: m.modelFramework, trained_by: m.jobId },
    files: [],
    size: 0,
    checksum: '',
    createdOn: m.createdOn,
    trained: true,
  }));
}

/** Every version of a package, uploaded and trained, oldest first. */
export function packageVersions(db: Db, organizationId: string, name: string): PackageVersionRecord[] {
  const uploaded = stmt<[string, string], Row>(
    db,
    `SELECT ${COLUMNS} FROM packages WHERE organization_id = ? AND name = ? ORDER BY created_on, version`,
  )
    .all(organizationId, name)
    .map(toRecord);
  return [...uploaded, ...trainedVersions(db, organizationId, name)].sort(
    (a, b) => a.createdOn - b.createdOn || (a.version < b.version ? -1 : a.version > b.version ? 1 : 0),
  );
}

/** Every package version of an organization, by package name then age. */
export function organizationPackages(db: Db, organizationId: string): PackageVersionRecord[] {
  const uploadedNames = stmt<[string], { name: string }>(db, 'SELECT DISTINCT name FROM packages WHERE organization_id = ?')
    .all(organizationId)
    .map((r) => r.name);
  const names = [...new Set([...uploadedNames, ...trainedModelNames(db, organizationId)])].sort();
  return names.flatMap((name) => packageVersions(db, organizationId, name));
}

/** The version a machine downloads for `wanted` (`latest` or empty: the newest), if the package has it. */
export function resolvePackageVersion(db: Db, organizationId: string, name: string, wanted: string): PackageVersionRecord | undefined {
  const versions = packageVersions(db, organizationId, name);
  if (wanted === '' || wanted === 'latest') return versions[versions.length - 1];
  return versions.find((v) => v.version === wanted);
}

/** Deletes an uploaded version; false when there was none. */
export function deletePackageVersion(db: Db, organizationId: string, name: string, version: string): boolean {
  return (
    stmt(db, 'DELETE FROM packages WHERE organization_id = ? AND name = ? AND version = ?').run(organizationId, name, version).changes === 1
  );
}
