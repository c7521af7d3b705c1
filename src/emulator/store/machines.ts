/** Machines (`robots` on the wire) and their parts, each part holding its config as JSON. */
import * as crypto from 'node:crypto';
import type { Db } from '../db/database';
import { newId, stmt } from './statements';

export interface RobotRecord {
  readonly id: string;
  readonly locationId: string;
  readonly organizationId: string;
  readonly name: string;
  readonly createdOn: number;
}

export interface PartRecord {
  readonly id: string;
  readonly robotId: string;
  readonly robotName: string;
  readonly locationId: string;
  readonly organizationId: string;
  readonly name: string;
  readonly mainPart: boolean;
  readonly secret: string;
  /** The config as stored: a JSON object text. */
  readonly config: string;
  /** Whether `config` is the JSON text a write sent (else it was stored from a Struct). */
  readonly configAsSent: boolean;
  /** The same config as an encoded google.protobuf.Struct (keys sorted), when it was written. */
  readonly configStruct?: Uint8Array<ArrayBuffer>;
  readonly createdOn: number;
  /** Milliseconds since the epoch; strictly increases with every config write. */
  readonly lastUpdated: number;
}

interface RobotRow {
  id: string;
  location_id: string;
  organization_id: string;
  name: string;
  created_on: number;
}
const ROBOT_SELECT =
  'SELECT r.id, r.location_id, l.organization_id, r.name, r.created_on FROM robots r JOIN locations l ON l.id = r.location_id';
const toRobot = (r: RobotRow): RobotRecord => ({
  id: r.id,
  locationId: r.location_id,
  organizationId: r.organization_id,
  name: r.name,
  createdOn: r.created_on,
});

interface PartRow {
  id: string;
  robot_id: string;
  robot_name: string;
  location_id: string;
  organization_id: string;
  name: string;
  main_part: number;
  secret: string;
  config: string;
  // better-sqlite3 returns BLOBs as Buffers over (non-shared) ArrayBuffers.
  config_struct: Uint8Array<ArrayBuffer> | null;
  config_as_sent: number;
  created_on: number;
  last_updated: number;
}
const PART_SELECT = `SELECT p.id, p.robot_id, r.name AS robot_name, r.location_id, l.organization_id, p.name, p.main_part,
  p.secret, p.config, p.config_struct, p.config_as_sent, p.created_on, p.last_updated
  FROM robot_parts p JOIN robots r ON r.id = p.robot_id JOIN locations l ON l.id = r.location_id`;
const toPart = (r: PartRow): PartRecord => ({
  id: r.id,
  robotId: r.robot_id,
  robotName: r.robot_name,
  locationId: r.location_id,
  organizationId: r.organization_id,
  name: r.name,
  mainPart: r.main_part === 1,
  secret: r.secret,
  config: r.config,
  configAsSent: r.config_as_sent === 1,
  ...(r.config_struct === null ? {} : { configStruct: r.config_struct }),
  createdOn: r.created_on,
  lastUpdated: r.last_updated,
});

/** An empty machine config, as a new part gets. */
export const EMPTY_CONFIG = '{}';

export function robotNameTaken(db: Db, locationId: string, name: string): boolean {
  return (
    stmt<[string, string], { id: string }>(db, 'SELECT id FROM robots WHERE location_id = ? AND name = ?').get(locationId, name) !==
    undefined
  );
}

/** Creates a machine and its main part (named `<machine>-main`), whose config is `mainConfig` (JSON text; by default empty). */
export function insertRobot(
  db: Db,
  locationId: string,
  name: string,
  now: number,
  mainConfig: string = EMPTY_CONFIG,
): { robotId: string; partId: string } {
  const robotId = newId();
  const partId = newId();
  db.transaction(() => {
    stmt<[string, string, string, number]>(db, 'INSERT INTO robots (id, location_id, name, created_on) VALUES (?, ?, ?, ?)').run(
      robotId,
      locationId,
      name,
      now,
    );
    insertPartRow(db, partId, robotId, `${name}-main`, true, now, mainConfig);
  }).immediate();
  return { robotId, partId };
}

function insertPartRow(db: Db, id: string, robotId: string, name: string, main: boolean, now: number, config = EMPTY_CONFIG): void {
  stmt<[string, string, string, number, string, string, number, number]>(
    db,
    `INSERT INTO robot_parts (id, robot_id, name, main_part, secret, config, created_on, last_updated)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(id, robotId, name, main ? 1 : 0, crypto.randomBytes(24).toString('base64url'), config, now, now);
}

export function partNameTaken(db: Db, robotId: string, name: string): boolean {
  return (
    stmt<[string, string], { id: string }>(db, 'SELECT id FROM robot_parts WHERE robot_id = ? AND name = ?').get(robotId, name) !==
    undefined
  );
}

/** Adds a non-main part to a machine. */
export function insertPart(db: Db, robotId: string, name: string, now: number): string {
  const id = newId();
  insertPartRow(db, id, robotId, name, false, now);
  return id;
}

/** Renames a machine and sets its location; its id and parts stay. */
export function updateRobot(db: Db, id: string, name: string, locationId: string): void {
  stmt<[string, string, string]>(db, 'UPDATE robots SET name = ?, location_id = ? WHERE id = ?').run(name, locationId, id);
}

export function getRobot(db: Db, id: string): RobotRecord | undefined {
  const r = stmt<[string], RobotRow>(db, `${ROBOT_SELECT} WHERE r.id = ?`).get(id);
  return r && toRobot(r);
}

export function listRobots(db: Db, locationId: string): RobotRecord[] {
  return stmt<[string], RobotRow>(db, `${ROBOT_SELECT} WHERE r.location_id = ? ORDER BY r.created_on, r.id`).all(locationId).map(toRobot);
}

/** Deletes a machine with its parts (and, through them, its module deployments). */
export function deleteRobot(db: Db, id: string): void {
  stmt<[string]>(db, 'DELETE FROM robots WHERE id = ?').run(id);
}

export function getPart(db: Db, id: string): PartRecord | undefined {
  const r = stmt<[string], PartRow>(db, `${PART_SELECT} WHERE p.id = ?`).get(id);
  return r && toPart(r);
}

export function listParts(db: Db, robotId: string): PartRecord[] {
  return stmt<[string], PartRow>(db, `${PART_SELECT} WHERE p.robot_id = ? ORDER BY p.main_part DESC, p.created_on, p.id`)
    .all(robotId)
    .map(toPart);
}

/** The order parts are met in when a location's machines are listed, each with its parts. */
const PARTS_IN_LOCATION_ORDER = 'ORDER BY r.created_on, r.id, p.main_part DESC, p.created_on, p.id';

/**
 * The part of a location whose name reads as the DNS label `label` (by `labelOf`): one
 * query through the location's index finds a part whose lower-case name is the label;
 * only when none is are the location's other part names read. Parts are met in the order
 * the location's machines, then their parts, are listed, the first match winning.
 */
export function partInLocationByLabel(
  db: Db,
  locationId: string,
  label: string,
  labelOf: (name: string) => string,
): PartRecord | undefined {
  const plain = stmt<[string, string], { id: string; name: string }>(
    db,
    `SELECT p.id, p.name FROM robot_parts p JOIN robots r ON r.id = p.robot_id WHERE r.location_id = ? AND lower(p.name) = ? ${PARTS_IN_LOCATION_ORDER}`,
  )
    .all(locationId, label)
    .find((p) => labelOf(p.name) === label);
  const found =
    plain ??
    stmt<[string], { id: string; name: string }>(
      db,
      `SELECT p.id, p.name FROM robot_parts p JOIN robots r ON r.id = p.robot_id WHERE r.location_id = ? ${PARTS_IN_LOCATION_ORDER}`,
    )
      .all(locationId)
      .find((p) => labelOf(p.name) === label);
  return found && getPart(db, found.id);
}

export function deletePart(db: Db, id: string): void {
  stmt<[string]>(db, 'DELETE FROM robot_parts WHERE id = ?').run(id);
}

/** A part's config as written: the JSON object text, whether it is the text sent, and the same document as an encoded Struct. */
export interface PartConfig {
  readonly json: string;
  readonly asSent: boolean;
  readonly struct: Uint8Array;
}

/**
 * Writes a part's name and config; `lastUpdated` becomes `now`, or one millisecond after
 * the previous value when the clock has not moved, so every write is distinguishable.
 */
export function writePart(db: Db, part: PartRecord, name: string, config: PartConfig, now: number): number {
  const lastUpdated = Math.max(now, part.lastUpdated + 1);
  stmt<[string, string, Uint8Array, number, number, string]>(
    db,
    'UPDATE robot_parts SET name = ?, config = ?, config_struct = ?, config_as_sent = ?, last_updated = ? WHERE id = ?',
  ).run(name, config.json, config.struct, config.asSent ? 1 : 0, lastUpdated, part.id);
  return lastUpdated;
}
