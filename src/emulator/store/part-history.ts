/**
 * Part config history: every config write of a part records the part as it was before the
 * edit, who edited it and when, numbered per part in write order. Entries go with the part.
 */
import type { Db } from '../db/database';
import type { PartRecord } from './machines';
import { stmt } from './statements';

export interface PartHistoryRecord {
  readonly partId: string;
  /** 1 for a part's first edit, then one more per edit. */
  readonly seq: number;
  readonly robotId: string;
  /** When the edit was written (the part's `last_updated` after it). */
  readonly editedOn: number;
  /** The API key that wrote it. */
  readonly editedBy: string;
  readonly oldName: string;
  readonly oldConfig: string;
  /** Whether `oldConfig` is the JSON text a write sent (else it was stored from a Struct). */
  readonly oldConfigAsSent: boolean;
  readonly oldConfigStruct?: Uint8Array<ArrayBuffer>;
  readonly oldLastUpdated: number;
}

interface Row {
  part_id: string;
  seq: number;
  robot_id: string;
  edited_on: number;
  edited_by: string;
  old_name: string;
  old_config: string;
  old_config_struct: Uint8Array<ArrayBuffer> | null;
  old_config_as_sent: number;
  old_last_updated: number;
}

const toRecord = (r: Row): PartHistoryRecord => ({
  partId: r.part_id,
  seq: r.seq,
  robotId: r.robot_id,
  editedOn: r.edited_on,
  editedBy: r.edited_by,
  oldName: r.old_name,
  oldConfig: r.old_config,
  oldConfigAsSent: r.old_config_as_sent === 1,
  ...(r.old_config_struct === null ? {} : { oldConfigStruct: r.old_config_struct }),
  oldLastUpdated: r.old_last_updated,
});

/** Records `before` (the part as read before the edit) as edited at `editedOn` by `editedBy`. */
export function recordPartEdit(db: Db, before: PartRecord, editedOn: number, editedBy: string): void {
  const next =
    (stmt<[string], { n: number | null }>(db, 'SELECT MAX(seq) AS n FROM robot_part_history WHERE part_id = ?').get(before.id)?.n ?? 0) + 1;
  stmt<[string, number, string, number, string, string, string, Uint8Array | null, number, number]>(
    db,
    `INSERT INTO robot_part_history
       (part_id, seq, robot_id, edited_on, edited_by, old_name, old_config, old_config_struct, old_config_as_sent, old_last_updated)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    before.id,
    next,
    before.robotId,
    editedOn,
    editedBy,
    before.name,
    before.config,
    before.configStruct ?? null,
    before.configAsSent ? 1 : 0,
    before.lastUpdated,
  );
}

export interface HistoryQuery {
  /** Only entries numbered below this (the page token: the last entry of the previous page). */
  readonly beforeSeq?: number;
  /** Edits at or after this instant. */
  readonly start?: number;
  /** Edits at or before this instant. */
  readonly end?: number;
  readonly limit?: number;
}

/** A part's history, newest edit first. */
export function partHistory(db: Db, partId: string, q: HistoryQuery): PartHistoryRecord[] {
  return stmt<[string, number, number, number, number], Row>(
    db,
    `SELECT * FROM robot_part_history
     WHERE part_id = ? AND seq < ? AND edited_on >= ? AND edited_on <= ?
     ORDER BY seq DESC LIMIT ?`,
  )
    .all(
      partId,
      q.beforeSeq ?? Number.MAX_SAFE_INTEGER,
      q.start ?? Number.MIN_SAFE_INTEGER,
      q.end ?? Number.MAX_SAFE_INTEGER,
      q.limit ?? -1,
    )
    .map(toRecord);
}
