/**
 * Between a source and the pages watching it: keeps the latest reading and the event log,
 * and sends each page the updates that bring it up to date.
 */
import type { DashboardSource, SourceEvent } from './source';
import { pageSnapshot, updatesBetween } from './updates';
import type { DashboardSnapshot, DashboardUpdate, EventView } from './view';

/** How many events the log keeps (the newest). */
export const EVENT_LOG_SIZE = 500;

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
  const withLog = (s: DashboardSnapshot): DashboardSnapshot => ({ ...s, events: [...events], version });

  const unsubscribe = source.subscribe((change) => {
    if (change.kind === 'event') {
      record(change.event);
      return;
    }
    const before = latest;
    latest = change.snapshot;
    if (before) for (const u of updatesBetween(before, latest)) send(u);
    else send({ type: 'snapshot', snapshot: pageSnapshot(withLog(latest)) });
  });

  return {
    async current() {
      if (!latest) {
        const first = await source.snapshot();
        latest ??= first;
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
