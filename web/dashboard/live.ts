/**
 * The page's copy of the dashboard: the first snapshot, then each pushed update applied to
 * it. Machines are kept by key, so an update of a few machines of thousands touches only
 * them; the page redraws at most once a frame however many updates arrive.
 */
import type { DashboardSnapshot, DashboardUpdate, EventView, FleetMachine } from '../../src/dashboard/view';

export interface LiveState {
  readonly snapshot?: DashboardSnapshot;
  /** Machines in key order. */
  readonly machines: readonly FleetMachine[];
  readonly connected: boolean;
  readonly failure?: string;
  /** Bumped on every change, so views can tell a new state from an old one. */
  readonly version: number;
}

const EVENT_LIMIT = 500;
const UPDATE_TYPES: ReadonlyArray<DashboardUpdate['type']> = ['snapshot', 'machines', 'rollouts', 'drift', 'plan', 'cycles', 'event', 'status'];

export function applyUpdate(state: LiveState, u: DashboardUpdate): LiveState {
  const version = state.version + 1;
  if (u.type === 'snapshot') return { ...state, snapshot: u.snapshot, machines: u.snapshot.machines, version };
  const s = state.snapshot;
  if (!s) return state;
  switch (u.type) {
    case 'machines': {
      const byKey = new Map(state.machines.map((m, i) => [m.key, i]));
      const gone = new Set(u.remove);
      const added = u.upsert.filter((m) => !byKey.has(m.key));
      let machines = state.machines.slice();
      for (const m of u.upsert) {
        const at = byKey.get(m.key);
        if (at !== undefined) machines[at] = m;
      }
      if (gone.size > 0) machines = machines.filter((m) => !gone.has(m.key));
      if (added.length > 0) machines = [...machines, ...added].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      return { ...state, machines, version };
    }
    case 'rollouts':
      return { ...state, snapshot: { ...s, rollouts: u.rollouts }, version };
    case 'drift':
      return { ...state, snapshot: { ...s, drift: u.drift }, version };
    case 'plan': {
      const { plan: _p, planError: _e, ...rest } = s;
      return { ...state, snapshot: { ...rest, ...(u.plan ? { plan: u.plan } : {}), ...(u.planError ? { planError: u.planError } : {}) }, version };
    }
    case 'cycles':
      return { ...state, snapshot: { ...s, cycles: u.cycles }, version };
    case 'event': {
      const events: EventView[] = [...s.events, u.event];
      return { ...state, snapshot: { ...s, events: events.length > EVENT_LIMIT ? events.slice(-EVENT_LIMIT) : events }, version };
    }
    case 'status': {
      const { readError: _r, ...rest } = s;
      return { ...state, snapshot: { ...rest, generatedAt: u.generatedAt, ...(u.readError ? { readError: u.readError } : {}) }, version };
    }
  }
}

/**
 * Follows the server's event stream; calls `onChange` at most once a frame. Once the stream
 * is open (and again after each reconnection) the snapshot is read; updates that came
 * meanwhile are applied after it when they are newer. Returns a function that stops it.
 */
export function followLive(onChange: (state: LiveState) => void): () => void {
  let state: LiveState = { machines: [], connected: false, version: 0 };
  let pending = false;
  /** Updates that came before the snapshot they follow, by number; undefined once it is read. */
  let waiting: Array<{ id: number; update: DashboardUpdate }> | undefined = [];
  let loaded = 0;
  const changed = (): void => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      onChange(state);
    });
  };
  const readSnapshot = async (): Promise<void> => {
    waiting = [];
    const res = await fetch('api/snapshot', { cache: 'no-store' });
    const body = (await res.json()) as DashboardSnapshot | { message: string };
    if (!res.ok || !('machines' in body)) {
      state = { ...state, failure: 'message' in body ? body.message : `the server answered ${res.status}`, version: state.version + 1 };
    } else {
      loaded = body.version ?? 0;
      state = applyUpdate(state, { type: 'snapshot', snapshot: body });
      for (const w of waiting) if (w.id > loaded) state = applyUpdate(state, w.update);
    }
    waiting = undefined;
    changed();
  };
  const source = new EventSource('api/events');
  source.addEventListener('hello', () => {
    void readSnapshot().catch((err: unknown) => {
      state = { ...state, failure: String(err), version: state.version + 1 };
      changed();
    });
  });
  for (const type of UPDATE_TYPES) {
    source.addEventListener(type, (e) => {
      const m = e as MessageEvent<string>;
      const update = JSON.parse(m.data) as DashboardUpdate;
      const id = Number(m.lastEventId);
      if (waiting) waiting.push({ id, update });
      else if (id > loaded) state = applyUpdate(state, update);
      changed();
    });
  }
  source.addEventListener('failure', (e) => {
    const { message } = JSON.parse((e as MessageEvent<string>).data) as { message: string };
    state = { ...state, failure: message, version: state.version + 1 };
    changed();
  });
  source.onopen = () => {
    state = { ...state, connected: true, version: state.version + 1 };
    changed();
  };
  source.onerror = () => {
    // EventSource reconnects by itself; the page says so meanwhile.
    state = { ...state, connected: false, version: state.version + 1 };
    changed();
  };
  return () => source.close();
}
