/** Datasets of an organization (names unique within it). */
import type { Db } from '../db/database';
import { newId, stmt } from './statements';

export interface DatasetRecord {
  readonly id: string;
  readonly organizationId: string;
  readonly name: string;
  readonly createdOn: number;
}

interface Row {
  id: string;
  organization_id: string;
  name: string;
  created_on: number;
}
const toDataset = (r: Row): DatasetRecord => ({ id: r.id, organizationId: r.organization_id, name: r.name, createdOn: r.created_on });

export function insertDataset(db: Db, organizationId: string, name: string, now: number): DatasetRecord {
  const d = { id: newId(), organizationId, name, createdOn: now };
  stmt<[string, string, string, number]>(db, 'INSERT INTO datasets (id, organization_id, name, created_on) VALUES (?, ?, ?, ?)').run(
    d.id,
    organizationId,
    name,
    now,
  );
  return d;
}

export function getDataset(db: Db, id: string): DatasetRecord | undefined {
  const r = stmt<[string], Row>(db, 'SELECT * FROM datasets WHERE id = ?').get(id);
  return r && toDataset(r);
}

export function datasetNameTaken(db: Db, organizationId: string, name: string): boolean {
  return (
    stmt<[string, string], Row>(db, 'SELECT * FROM datasets WHERE organization_id = ? AND name = ?').get(organizationId, name) !== undefined
  );
}

export function listDatasets(db: Db, organizationId: string): DatasetRecord[] {
  return stmt<[string], Row>(db, 'SELECT * FROM datasets WHERE organization_id = ? ORDER BY created_on, id')
    .all(organizationId)
    .map(toDataset);
}

export function deleteDataset(db: Db, id: string): void {
  stmt<[string]>(db, 'DELETE FROM datasets WHERE id = ?').run(id);
}
