/** Tabular data simulated machines captured: one row per point, its payload as JSON text. */
import type { Db } from '../db/database';
import { stmt } from './statements';

export interface CapturedPoint {
  readonly resourceName: string;
  readonly resourceSubtype: string;
  readonly methodName: string;
  readonly time: number;
  readonly payload: Readonly<Record<string, unknown>>;
}

export interface CapturedRow {
  readonly id: number;
  readonly resource_name: string;
  readonly resource_subtype: string;
  readonly method_name: string;
  readonly time: number;
  readonly payload: string;
}

export function appendCaptured(db: Db, partId: string, point: CapturedPoint): void {
  stmt<[string, string, string, string, number, string]>(
    db,
    'INSERT INTO captured_tabular (part_id, resource_name, resource_subtype, method_name, time, payload) VALUES (?, ?, ?, ?, ?, ?)',
  ).run(partId, point.resourceName, point.resourceSubtype, point.methodName, point.time, JSON.stringify(point.payload));
}

/** A source's points from `start` (inclusive) to `end` (exclusive), oldest first. */
export function capturedPoints(
  db: Db,
  partId: string,
  source: { readonly resourceName: string; readonly resourceSubtype: string; readonly methodName: string },
  start: number,
  end: number,
): CapturedRow[] {
  return stmt<[string, string, string, string, number, number], CapturedRow>(
    db,
    `SELECT id, resource_name, resource_subtype, method_name, time, payload FROM captured_tabular
     WHERE part_id = ? AND resource_name = ? AND method_name = ? AND resource_subtype = ? AND time >= ? AND time < ?
     ORDER BY time, id`,
  ).all(partId, source.resourceName, source.methodName, source.resourceSubtype, start, end);
}

/** Drops a part's points captured before `before`. */
export function trimCaptured(db: Db, partId: string, before: number): void {
  stmt<[string, number]>(db, 'DELETE FROM captured_tabular WHERE part_id = ? AND time < ?').run(partId, before);
}
