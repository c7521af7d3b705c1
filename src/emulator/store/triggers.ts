/** What triggers remember: each part's online state as they last saw it, and when each notification last went out. */
import type { Db } from '../db/database';
import { stmt } from './statements';

/** A part's online state as its triggers last saw it; `unseen` for a part that checked in before triggers looked at it. */
export type SeenLiveness = 'online' | 'offline' | 'unseen';

/** Every part's online state as triggers last saw it, by part id (a part never seen is absent). */
export function seenLiveness(db: Db): Map<string, SeenLiveness> {
  const rows = stmt<[], { part_id: string; online: number }>(db, 'SELECT part_id, online FROM part_liveness').all();
  return new Map(rows.map((r) => [r.part_id, r.online === 1 ? 'online' : r.online === 0 ? 'offline' : 'unseen']));
}

/** Each part's last check-in (ms), by part id; a part never checked in is absent. */
export function lastAccesses(db: Db): Map<string, number> {
  const rows = stmt<[], { part_id: string; last_access: number }>(
    db,
    'SELECT part_id, last_access FROM part_checkins WHERE last_access IS NOT NULL',
  ).all();
  return new Map(rows.map((r) => [r.part_id, r.last_access]));
}

export function recordLiveness(db: Db, partId: string, online: boolean): void {
  const value = online ? 1 : 0;
  stmt<[string, number, number]>(
    db,
    'INSERT INTO part_liveness (part_id, online) VALUES (?, ?) ON CONFLICT (part_id) DO UPDATE SET online = ?',
  ).run(partId, value, value);
}

/** When a notification of a part's trigger last went out (ms), by `<trigger name>#<index>`. */
export function notificationTimes(db: Db, partId: string): Map<string, number> {
  const rows = stmt<[string], { trigger_name: string; notification: number; last_sent: number }>(
    db,
    'SELECT trigger_name, notification, last_sent FROM trigger_notifications WHERE part_id = ?',
  ).all(partId);
  return new Map(rows.map((r) => [notificationKey(r.trigger_name, r.notification), r.last_sent]));
}

export function notificationKey(triggerName: string, index: number): string {
  return `${triggerName}#${index}`;
}

export function recordNotification(db: Db, partId: string, triggerName: string, index: number, at: number): void {
  stmt<[string, string, number, number, number]>(
    db,
    `INSERT INTO trigger_notifications (part_id, trigger_name, notification, last_sent) VALUES (?, ?, ?, ?)
     ON CONFLICT (part_id, trigger_name, notification) DO UPDATE SET last_sent = ?`,
  ).run(partId, triggerName, index, at, at);
}

/** Who a part is, as a notification names it: its ids and names up to its organization. */
export interface PartIdentity {
  readonly partId: string;
  readonly partName: string;
  readonly robotId: string;
  readonly machineName: string;
  readonly locationId: string;
  readonly locationName: string;
  readonly organizationId: string;
  readonly organizationName: string;
}

export function partIdentity(db: Db, partId: string): PartIdentity | undefined {
  const r = stmt<
    [string],
    {
      part_id: string;
      part_name: string;
      robot_id: string;
      robot_name: string;
      location_id: string;
      location_name: string;
      org_id: string;
      org_name: string;
    }
  >(
    db,
    `SELECT p.id AS part_id, p.name AS part_name, r.id AS robot_id, r.name AS robot_name, l.id AS location_id, l.name AS location_name,
            o.id AS org_id, o.name AS org_name
     FROM robot_parts p JOIN robots r ON r.id = p.robot_id JOIN locations l ON l.id = r.location_id JOIN organizations o ON o.id = l.organization_id
     WHERE p.id = ?`,
  ).get(partId);
  return (
    r && {
      partId: r.part_id,
      partName: r.part_name,
      robotId: r.robot_id,
      machineName: r.robot_name,
      locationId: r.location_id,
      locationName: r.location_name,
      organizationId: r.org_id,
      organizationName: r.org_name,
    }
  );
}
