/**
 * The page's copy of the dashboard: the snapshot the event stream opens with, then each
 * pushed update applied to it. Updates are queued as they arrive and applied together once
 * an animation frame, machines merged by key in one pass over the rows, so a burst of
 * thousands of changes costs one redraw and never one per message.
 */
import { decodeFleet, mergeMachines } from '../../src/dashboard/fleet-table';
import { readHeaders } from './actions';
import type { DashboardUpdate, EventView, FleetRow, PageSnapshot } from '../../src/dashboard/view';

/** The snapshot without its machines (kept decoded in `machines`). */
export type LiveSnapshot = Omit<PageSnapshot, 'fleet'>;

export interface LiveState {
  readonly snapshot?: LiveSnapshot;
  /** Machines in key order. */
  readonly machines: readonly FleetRow[];
  readonly connected: boolean;
  readonly failure?: string;
  /** Bumped on every change, so views can tell a new state from an old one. */
  readonly version: number;
}

const EVENT_LIMIT = 500;
const UPDATE_TYPES: ReadonlyArray<DashboardUpdate['type']> = [
  'snapshot',
  'machines',
  'rollouts',
  'drift',
  'plan',
  'cycles',
  'event',
  'health',
  'status',
];
const HEALTH_LIMIT = 720;

/** Applies updates in order; machine changes are gathered and merged once. */
export function applyUpdates(state: LiveState, updates: readonly DashboardUpdate[]): LiveState {
  let snapshot = state.snapshot;
  let machines = state.machines;
  let changes = new Map<string, FleetRow | null>();
  const flush = (): void => {
    if (changes.size > 0) machines = mergeMachines(machines, changes);
    changes = new Map();
  };
  for (const u of updates) {
    if (u.type === 'snapshot') {
      const { fleet, ...rest } = u.snapshot;
      snapshot = rest;
      machines = decodeFleet(fleet);
      changes = new Map();
      continue;
    }
    const s = snapshot;
    if (!s) continue;
    switch (u.type) {
      case 'machines':
        for (const key of u.remove) changes.set(key, null);
        for (const row of decodeFleet(u.upsert)) changes.set(row.key, row);
        break;
      case 'rollouts':
        snapshot = { ...s, rollouts: u.rollouts };
        break;
      case 'drift':
        snapshot = { ...s, drift: u.drift };
        break;
      case 'plan': {
        const { plan: _p, planError: _e, ...rest } = s;
        snapshot = { ...rest, ...(u.plan ? { plan: u.plan } : {}), ...(u.planError ? { planError: u.planError } : {}) };
        break;
      }
      case 'cycles':
        snapshot = { ...s, cycles: u.cycles };
        break;
      case 'event': {
        const events: EventView[] = [...s.events, u.event];
        snapshot = { ...s, events: events.length > EVENT_LIMIT ? events.slice(-EVENT_LIMIT) : events };
        break;
      }
      case 'health': {
        const health = [...(s.health ?? []), u.point];
        snapshot = { ...s, health: health.length > HEALTH_LIMIT ? health.slice(-HEALTH_LIMIT) : health };
        break;
      }
      case 'status': {
        const { readError: _r, ...rest } = s;
        snapshot = { ...rest, generatedAt: u.generatedAt, ...(u.readError ? { readError: u.readError } : {}) };
        break;
      }
    }
  }
  flush();
  return { ...state, ...(snapshot ? { snapshot } : {}), machines, version: state.version + 1 };
}

/**
 * Follows the server's event stream, which opens (and reopens after each reconnection) with
 * the snapshot; calls `onChange` at most once a frame. Returns a function that stops it.
 */
export function followLive(onChange: (state: LiveState) => void): () => void {
  let state: LiveState = { machines: [], connected: false, version: 0 };
  let queued: DashboardUpdate[] = [];
  let pending = false;
  const changed = (): void => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      if (queued.length > 0) {
        state = applyUpdates(state, queued);
        queued = [];
      }
      onChange(state);
    });
  };
  const received = (type: string, data: string): void => {
    if (type === 'failure') {
      const { message } = JSON.parse(data) as { message: string };
      state = { ...state, failure: message, version: state.version + 1 };
    } else if ((UPDATE_TYPES as readonly string[]).includes(type)) {
      const update = JSON.parse(data) as DashboardUpdate;
      // A snapshot replaces everything queued before it.
      if (update.type === 'snapshot') queued = [update];
      else queued.push(update);
    } else return;
    changed();
  };
  const connected = (yes: boolean): void => {
    state = { ...state, connected: yes, version: state.version + 1 };
    changed();
  };
  return followStream('api/events', { received, connected });
}

/** Server-sent events of one block of a stream (`event:` and `data:` lines), or undefined for a comment. */
function parseEvent(block: string): { type: string; data: string } | undefined {
  let type = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('event:')) type = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  return data.length > 0 ? { type, data: data.join('\n') } : undefined;
}

/**
 * Reads a stream of server-sent events with the saved token (EventSource cannot send one,
 * and a server may want it for reads), reopening it a second after it ends or is refused.
 */
function followStream(path: string, on: { received(type: string, data: string): void; connected(yes: boolean): void }): () => void {
  let stopped = false;
  let controller: AbortController | undefined;
  const readOnce = async (): Promise<void> => {
    controller = new AbortController();
    const res = await fetch(path, { headers: readHeaders(), signal: controller.signal });
    if (!res.ok || !res.body) return;
    on.connected(true);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const event = parseEvent(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (event) on.received(event.type, event.data);
      }
    }
  };
  const follow = async (): Promise<void> => {
    while (!stopped) {
      await readOnce().catch(() => undefined);
      if (stopped) return;
      // The page says the stream is lost meanwhile.
      on.connected(false);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  };
  void follow();
  return () => {
    stopped = true;
    controller?.abort();
  };
}
