import type { DashboardSource, SourceChange } from '../../src/dashboard/source';
import type { ActionResult, DashboardSnapshot, FleetMachine } from '../../src/dashboard/view';

export function machineRow(i: number, over: Partial<FleetMachine> = {}): FleetMachine {
  const name = `m-${String(i).padStart(5, '0')}`;
  return {
    key: `fleet/${name}`,
    stack: 'fleet',
    machine: name,
    partId: `part-${i}`,
    location: `site-${i % 7}`,
    online: 'online',
    secondsSinceOnline: 0,
    health: 'healthy',
    runningRevision: '2026-01-01T00:00:00.000Z',
    latestRevision: '2026-01-01T00:00:00.000Z',
    modules: [
      { name: 'sensors', moduleId: 'acme:sensors', policy: '~1.2', running: '1.2.3', latest: '1.3.0', admitsLatest: false, state: 'ready' },
    ],
    resources: { ready: 2, total: 2 },
    problems: [],
    ...over,
  };
}

export function snapshotOf(machines: readonly FleetMachine[], over: Partial<DashboardSnapshot> = {}): DashboardSnapshot {
  return {
    generatedAt: new Date().toISOString(),
    source: 'test source',
    machines,
    rollouts: [],
    drift: [],
    cycles: [],
    events: [],
    capabilities: { abort: true, resume: false, approve: true, heal: false },
    ...over,
  };
}

/** A source whose readings the test pushes, recording the actions asked of it. */
export class FakeSource implements DashboardSource {
  current: DashboardSnapshot;
  readonly asked: string[] = [];
  readonly notified: string[] = [];
  private readonly listeners = new Set<(c: SourceChange) => void>();
  approveAnswer: ActionResult = { ok: true, message: 'applying the plan' };

  constructor(snapshot: DashboardSnapshot) {
    this.current = snapshot;
  }
  snapshot(): Promise<DashboardSnapshot> {
    return Promise.resolve(this.current);
  }
  subscribe(listener: (c: SourceChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  push(change: SourceChange): void {
    if (change.kind === 'snapshot') this.current = change.snapshot;
    for (const l of this.listeners) l(change);
  }
  machine(key: string) {
    const machine = this.current.machines.find((m) => m.key === key);
    return Promise.resolve(machine ? { machine, config: {}, fragments: [], resources: [], logs: [], history: [] } : undefined);
  }
  abortRollout(target: { stack: string; rollout?: string }): Promise<ActionResult> {
    this.asked.push(`abort ${target.stack}${target.rollout ? ` ${target.rollout}` : ''}`);
    return Promise.resolve({ ok: true, message: 'rolled back' });
  }
  approve(stack: string): Promise<ActionResult> {
    this.asked.push(`approve ${stack}`);
    return Promise.resolve(this.approveAnswer);
  }
  notify(event: { message: string }): void {
    this.notified.push(event.message);
  }
}
