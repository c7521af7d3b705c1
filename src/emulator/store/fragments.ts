/**
 * Fragments: configs an organization shares between machines. Every save is a new revision
 * (numbered 1, 2, ... per fragment; the revision string is the number), tags name a revision
 * (moving one is not a save),
 * and a generation counts every change so machines know to resolve their configs again.
 */
import type { Db } from '../db/database';
import { newId, stmt } from './statements';

export interface FragmentRecord {
  readonly id: string;
  readonly organizationId: string;
  readonly name: string;
  readonly visibility: number;
  readonly createdOn: number;
  /** Milliseconds since the epoch of the latest save; strictly increases with every save (tags leave it). */
  readonly lastUpdated: number;
  readonly latestRevision: number;
}

export interface FragmentRevisionRecord {
  readonly fragmentId: string;
  readonly revision: number;
  readonly name: string;
  readonly visibility: number;
  /** The config as saved: a JSON object text. */
  readonly config: string;
  readonly createdAt: number;
  /** The API key that saved it. */
  readonly editedBy: string;
}

interface FragmentRow {
  id: string;
  organization_id: string;
  name: string;
  visibility: number;
  created_on: number;
  last_updated: number;
  latest_revision: number;
}
const toFragment = (r: FragmentRow): FragmentRecord => ({
  id: r.id,
  organizationId: r.organization_id,
  name: r.name,
  visibility: r.visibility,
  createdOn: r.created_on,
  lastUpdated: r.last_updated,
  latestRevision: r.latest_revision,
});

interface RevisionRow {
  fragment_id: string;
  revision: number;
  name: string;
  visibility: number;
  config: string;
  created_at: number;
  edited_by: string;
}
const toRevision = (r: RevisionRow): FragmentRevisionRecord => ({
  fragmentId: r.fragment_id,
  revision: r.revision,
  name: r.name,
  visibility: r.visibility,
  config: r.config,
  createdAt: r.created_at,
  editedBy: r.edited_by,
});

function bumpGeneration(db: Db): void {
  stmt(db, 'UPDATE fragment_generation SET generation = generation + 1 WHERE id = 1').run();
}

/** Counts every change of any fragment. */
export function fragmentGeneration(db: Db): number {
  return stmt<[], { generation: number }>(db, 'SELECT generation FROM fragment_generation WHERE id = 1').get()?.generation ?? 0;
}

export function getFragment(db: Db, id: string): FragmentRecord | undefined {
  const r = stmt<[string], FragmentRow>(db, 'SELECT * FROM fragments WHERE id = ?').get(id);
  return r && toFragment(r);
}

/** Fragments of an organization, or every fragment when `organizationId` is undefined, oldest first. */
export function listFragments(db: Db, organizationId: string | undefined): FragmentRecord[] {
  const rows =
    organizationId === undefined
      ? stmt<[], FragmentRow>(db, 'SELECT * FROM fragments ORDER BY created_on, id').all()
      : stmt<[string], FragmentRow>(db, 'SELECT * FROM fragments WHERE organization_id = ? ORDER BY created_on, id').all(organizationId);
  return rows.map(toFragment);
}

/** Creates a fragment and its revision 1. */
export function insertFragment(
  db: Db,
  f: { organizationId: string; name: string; visibility: number; config: string; editedBy: string },
  now: number,
): string {
  const id = newId();
  stmt<[string, string, string, number, number, number]>(
    db,
    'INSERT INTO fragments (id, organization_id, name, visibility, created_on, last_updated, latest_revision) VALUES (?, ?, ?, ?, ?, ?, 1)',
  ).run(id, f.organizationId, f.name, f.visibility, now, now);
  insertRevision(db, {
    fragmentId: id,
    revision: 1,
    name: f.name,
    visibility: f.visibility,
    config: f.config,
    createdAt: now,
    editedBy: f.editedBy,
  });
  bumpGeneration(db);
  return id;
}

function insertRevision(db: Db, r: FragmentRevisionRecord): void {
  stmt<[string, number, string, number, string, number, string]>(
    db,
    'INSERT INTO fragment_revisions (fragment_id, revision, name, visibility, config, created_at, edited_by) VALUES (?, ?, ?, ?, ?, ?, ?)',
  ).run(r.fragmentId, r.revision, r.name, r.visibility, r.config, r.createdAt, r.editedBy);
}

/** The next `last_updated` of a fragment: `now`, or a millisecond after the previous one when the clock has not moved. */
function nextUpdate(f: FragmentRecord, now: number): number {
  return Math.max(now, f.lastUpdated + 1);
}

/** Saves a new revision (the next number) with its name, visibility and config. */
export function saveRevision(
  db: Db,
  f: FragmentRecord,
  next: { name: string; visibility: number; config: string; editedBy: string },
  now: number,
): void {
  const revision = f.latestRevision + 1;
  const at = nextUpdate(f, now);
  insertRevision(db, {
    fragmentId: f.id,
    revision,
    name: next.name,
    visibility: next.visibility,
    config: next.config,
    createdAt: at,
    editedBy: next.editedBy,
  });
  stmt<[string, number, number, number, string]>(
    db,
    'UPDATE fragments SET name = ?, visibility = ?, last_updated = ?, latest_revision = ? WHERE id = ?',
  ).run(next.name, next.visibility, at, revision, f.id);
  bumpGeneration(db);
}

export function getRevision(db: Db, fragmentId: string, revision: number): FragmentRevisionRecord | undefined {
  const r = stmt<[string, number], RevisionRow>(db, 'SELECT * FROM fragment_revisions WHERE fragment_id = ? AND revision = ?').get(
    fragmentId,
    revision,
  );
  return r && toRevision(r);
}

/** A fragment's revisions, newest first, below `before` when given, at most `limit`. */
export function listRevisions(db: Db, fragmentId: string, before?: number, limit?: number): FragmentRevisionRecord[] {
  return stmt<[string, number, number], RevisionRow>(
    db,
    'SELECT * FROM fragment_revisions WHERE fragment_id = ? AND revision < ? ORDER BY revision DESC LIMIT ?',
  )
    .all(fragmentId, before ?? Number.MAX_SAFE_INTEGER, limit ?? -1)
    .map(toRevision);
}

/** A fragment's tags by name, in name order. */
export function listTags(db: Db, fragmentId: string): Array<{ tag: string; revision: number }> {
  return stmt<[string], { tag: string; revision: number }>(
    db,
    'SELECT tag, revision FROM fragment_tags WHERE fragment_id = ? ORDER BY tag',
  ).all(fragmentId);
}

/** Points a tag at a revision (creating or moving it). */
export function setTag(db: Db, f: FragmentRecord, tag: string, revision: number): void {
  stmt<[string, string, number]>(
    db,
    'INSERT INTO fragment_tags (fragment_id, tag, revision) VALUES (?, ?, ?) ON CONFLICT (fragment_id, tag) DO UPDATE SET revision = excluded.revision',
  ).run(f.id, tag, revision);
  bumpGeneration(db);
}

/** Removes a tag; false when the fragment had no such tag. */
export function deleteTag(db: Db, f: FragmentRecord, tag: string): boolean {
  const removed = stmt<[string, string]>(db, 'DELETE FROM fragment_tags WHERE fragment_id = ? AND tag = ?').run(f.id, tag).changes > 0;
  if (removed) bumpGeneration(db);
  return removed;
}

/** Deletes a fragment with its revisions and tags. */
export function deleteFragment(db: Db, id: string): void {
  stmt<[string]>(db, 'DELETE FROM fragments WHERE id = ?').run(id);
  bumpGeneration(db);
}

/** Every part's id, machine, organization and stored config that names fragments (others cannot use one). */
export function partsWithFragments(db: Db): Array<{ partId: string; robotId: string; organizationId: string; config: string }> {
  return stmt<[], { id: string; robot_id: string; organization_id: string; config: string }>(
    db,
    `SELECT p.id, p.robot_id, l.organization_id, p.config FROM robot_parts p JOIN robots r ON r.id = p.robot_id
     JOIN locations l ON l.id = r.location_id WHERE p.config LIKE '%"fragments"%' ORDER BY p.created_on, p.id`,
  )
    .all()
    .map((r) => ({ partId: r.id, robotId: r.robot_id, organizationId: r.organization_id, config: r.config }));
}
