/** Check-ins of simulated machines: each part's last access, what it runs, restart requests and its log lines. */
import type { Db } from '../db/database';
import { stmt } from './statements';

export interface CheckinRecord {
  readonly partId: string;
  /** Milliseconds since the epoch of the last check-in; undefined when the part never checked in. */
  readonly lastAccess?: number;
  readonly restartRequested: boolean;
  /** What the machine reported running (JSON of a PartRun), when it has checked in. */
  readonly run?: string;
}

interface Row {
  part_id: string;
  last_access: number | null;
  restart_requested: number;
  run: string | null;
}

const toRecord = (r: Row): CheckinRecord => ({
  partId: r.part_id,
  ...(r.last_access === null ? {} : { lastAccess: r.last_access }),
  restartRequested: r.restart_requested === 1,
  ...(r.run === null ? {} : { run: r.run }),
});

export function getCheckin(db: Db, partId: string): CheckinRecord | undefined {
  const r = stmt<[string], Row>(db, 'SELECT * FROM part_checkins WHERE part_id = ?').get(partId);
  return r && toRecord(r);
}

/** Every part's check-in record. */
export function allCheckins(db: Db): CheckinRecord[] {
  return stmt<[], Row>(db, 'SELECT * FROM part_checkins').all().map(toRecord);
}

/** The last access of each part of a machine, by part id. */
export function checkinsOfRobot(db: Db, robotId: string): Map<string, CheckinRecord> {
  const rows = stmt<[string], Row>(db, 'SELECT c.* FROM part_checkins c JOIN robot_parts p ON p.id = c.part_id WHERE p.robot_id = ?').all(
    robotId,
  );
  return new Map(rows.map((r) => [r.part_id, toRecord(r)]));
}

/** Records a check-in: the access time, and what it runs when that changed (`run` undefined keeps it). Clears a restart request. */
export function recordCheckin(db: Db, partId: string, now: number, run: string | undefined): void {
  if (run === undefined) {
    stmt<[string, number, number]>(
      db,
      `INSERT INTO part_checkins (part_id, last_access, restart_requested) VALUES (?, ?, 0)
       ON CONFLICT (part_id) DO UPDATE SET last_access = ?, restart_requested = 0`,
    ).run(partId, now, now);
    return;
  }
  stmt<[string, number, string, number, string]>(
    db,
    `INSERT INTO part_checkins (part_id, last_access, restart_requested, run) VALUES (?, ?, 0, ?)
     ON CONFLICT (part_id) DO UPDATE SET last_access = ?, restart_requested = 0, run = ?`,
  ).run(partId, now, run, now, run);
}

/** Asks the part's machine to restart at its next check-in; asking again before then changes nothing. */
export function requestRestart(db: Db, partId: string): void {
  stmt<[string]>(
    db,
    `INSERT INTO part_checkins (part_id, restart_requested) VALUES (?, 1)
     ON CONFLICT (part_id) DO UPDATE SET restart_requested = 1`,
  ).run(partId);
}

export interface LogRecord {
  readonly id: number;
  readonly time: number;
  readonly level: string;
  readonly logger: string;
  readonly message: string;
}

export function appendLog(db: Db, partId: string, time: number, level: string, logger: string, message: string): void {
  stmt<[string, number, string, string, string]>(
    db,
    'INSERT INTO part_logs (part_id, time, level, logger, message) VALUES (?, ?, ?, ?, ?)',
  ).run(partId, time, level, logger, message);
}

/** A part's log lines, newest first, older than the `before` id when given. */
export function partLogs(db: Db, partId: string, before: number | undefined, limit: number): LogRecord[] {
  return stmt<[string, number, number], LogRecord>(
    db,
    'SELECT id, time, level, logger, message FROM part_logs WHERE part_id = ? AND id < ? ORDER BY id DESC LIMIT ?',
  ).all(partId, before ?? Number.MAX_SAFE_INTEGER, limit);
}

/** Keeps the newest `keep` log lines of a part. */
export function trimLogs(db: Db, partId: string, keep: number): void {
  stmt<[string, string, number]>(
    db,
    'DELETE FROM part_logs WHERE part_id = ? AND id <= (SELECT id FROM part_logs WHERE part_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)',
  ).run(partId, partId, keep);
}

/** A part as a check-in sees it. */
export interface CheckinPart {
  readonly id: string;
  readonly robotId: string;
  readonly robotName: string;
  readonly lastUpdated: number;
  readonly restartRequested: boolean;
}

/** Every part of every machine, with its pending restart request. */
export function partsToCheckIn(db: Db): CheckinPart[] {
  return stmt<[], { id: string; robot_id: string; robot_name: string; last_updated: number; restart_requested: number | null }>(
    db,
    `SELECT p.id, p.robot_id, r.name AS robot_name, p.last_updated, c.restart_requested
     FROM robot_parts p JOIN robots r ON r.id = p.robot_id LEFT JOIN part_checkins c ON c.part_id = p.id`,
  )
    .all()
    .map((r) => ({
      id: r.id,
      robotId: r.robot_id,
      robotName: r.robot_name,
      lastUpdated: r.last_updated,
      restartRequested: r.restart_requested === 1,
    }));
}

/** The version each registry module of every part runs, by part id then module name. */
export function deployedVersions(db: Db): Map<string, Map<string, { moduleId: string; version: string }>> {
  const out = new Map<string, Map<string, { moduleId: string; version: string }>>();
  const rows = stmt<[], { part_id: string; module_name: string; module_id: string; deployed_version: string }>(
    db,
    'SELECT part_id, module_name, module_id, deployed_version FROM module_deployments',
  ).all();
  for (const r of rows) {
    let m = out.get(r.part_id);
    if (!m) out.set(r.part_id, (m = new Map()));
    m.set(r.module_name, { moduleId: r.module_id, version: r.deployed_version });
  }
  return out;
}
