/**
 * Between a source and the pages watching it: keeps the latest reading and the event log,
 * and sends each page the updates that bring it up to date.
 */
import type { DashboardSource, SourceEvent } from './source';
import { pageSnapshot, updatesBetween } from './updates';
import { healthPoint } from './charts';
import type { DashboardSnapshot, DashboardUpdate, EventView, HealthPoint } from './view';

/** How many events the log keeps (the newest). */
export const EVENT_LOG_SIZE = 500;
/** How many health points the dashboard keeps (the newest), and how often one is kept when nothing changed. */
export const HEALTH_HISTORY_SIZE = 720;
export const HEALTH_POINT_EVERY_MS = 60_000;

/** Whether a new health reading is kept: its counts changed, or the last kept one is old. */
export function keepsHealthPoint(last: HealthPoint | undefined, next: HealthPoint): boolean {
  if (!last) return true;
  const same =
    last.healthy === next.healthy && last.changing === next.changing && last.unhealthy === next.unhealthy && last.offline === next.offline;
  return !same || Date.parse(next.at) - Date.parse(last.at) >= HEALTH_POINT_EVERY_MS;
}

export interface DashboardHub {
  /** The latest reading, with the dashboard's event log. */
  current(): Promise<DashboardSnapshot>;
  /** Calls `listener` with every update and its number until the returned function is called. */
  watch(listener: (update: DashboardUpdate, version: number) => void): () => void;
  /** Adds an event to the log and sends it to every page. */
  record(event: SourceEvent): EventView;
  close(): void;
}

export function dashboardHub(source: DashboardSource): DashboardHub {
  const listeners = new Set<(update: DashboardUpdate, version: number) => void>();
  const events: EventView[] = [];
  let nextId = 1;
  let latest: DashboardSnapshot | undefined;
  let version = 0;

  const send = (update: DashboardUpdate): void => {
    version += 1;
    for (const l of listeners) l(update, version);
  };
  const record = (e: SourceEvent): EventView => {
    const event: EventView = {
      id: nextId++,
      at: e.at ?? new Date().toISOString(),
      kind: e.kind,
      level: e.level,
      message: e.message,
      ...(e.stack ? { stack: e.stack } : {}),
    };
    events.push(event);
    if (events.length > EVENT_LOG_SIZE) events.splice(0, events.length - EVENT_LOG_SIZE);
    send({ type: 'event', event });
    return event;
  };
  const health: HealthPoint[] = [];
  /** Records the reading's health counts when they are worth a point; true when one was added. */
  const recordHealth = (s: DashboardSnapshot): HealthPoint | undefined => {
    if (s.readError !== undefined && s.machines.length === 0) return undefined;
    const point = healthPoint(s.generatedAt, s.machines);
    if (!keepsHealthPoint(health[health.length - 1], point)) return undefined;
    health.push(point);
    if (health.length > HEALTH_HISTORY_SIZE) health.splice(0, health.length - HEALTH_HISTORY_SIZE);
    return point;
  };
  const withLog = (s: DashboardSnapshot): DashboardSnapshot => ({ ...s, events: [...events], version, health: [...health] });

  const unsubscribe = source.subscribe((change) => {
    if (change.kind === 'event') {
      record(change.event);
      return;
    }
    const before = latest;
    latest = change.snapshot;
    const point = recordHealth(latest);
    if (before) {
      for (const u of updatesBetween(before, latest)) send(u);
      if (point) send({ type: 'health', point });
    } else send({ type: 'snapshot', snapshot: pageSnapshot(withLog(latest)) });
  });

  return {
    async current() {
      if (!latest) {
        const first = await source.snapshot();
        if (!latest) {
          latest = first;
          recordHealth(first);
        }
      }
      return withLog(latest);
    },
    watch(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    record,
    close() {
      unsubscribe();
      listeners.clear();
    },
  };
}
