/** Datasets of an organization (names unique within it). */
import type { Db } from '../db/database';
import { newId, stmt } from './statements';

export interface DatasetRecord {
  readonly id: string;
  readonly organizationId: string;
  readonly name: string;
  readonly createdOn: number;
  /** viam.app.dataset.v1.DatasetType's number; fixed at creation. */
  readonly type: number;
}

interface Row {
  id: string;
  organization_id: string;
  name: string;
  created_on: number;
  type: number;
}
const toDataset = (r: Row): DatasetRecord => ({
  id: r.id,
  organizationId: r.organization_id,
  name: r.name,
  createdOn: r.created_on,
  type: r.type,
});

export function insertDataset(db: Db, organizationId: string, name: string, type: number, now: number): DatasetRecord {
  const d = { id: newId(), organizationId, name, createdOn: now, type };
  stmt<[string, string, string, number, number]>(
    db,
    'INSERT INTO datasets (id, organization_id, name, created_on, type) VALUES (?, ?, ?, ?, ?)',
  ).run(d.id, organizationId, name, now, type);
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

/** The organization's datasets, of one type when `type` is given. */
export function listDatasets(db: Db, organizationId: string, type?: number): DatasetRecord[] {
  const rows =
    type === undefined
      ? stmt<[string], Row>(db, 'SELECT * FROM datasets WHERE organization_id = ? ORDER BY created_on, id').all(organizationId)
      : stmt<[string, number], Row>(db, 'SELECT * FROM datasets WHERE organization_id = ? AND type = ? ORDER BY created_on, id').all(
          organizationId,
          type,
        );
  return rows.map(toDataset);
}

export function deleteDataset(db: Db, id: string): void {
  stmt<[string]>(db, 'DELETE FROM datasets WHERE id = ?').run(id);
}
