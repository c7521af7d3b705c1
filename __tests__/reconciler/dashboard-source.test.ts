/**
 * The reconciler's dashboard source without a fleet: cycles built from the reconciler's
 * events, approvals and heals handed to the reconciler, and actions announced as events.
 */
import type { SourceChange } from '../../src/dashboard/source';
import { nextCycles, reconcilerDashboardSource, type DashboardReconciler } from '../../src/reconciler/dashboard-source';
import type { EventBody, ReconcilerEvent, ReconcilerStatus } from '../../src/reconciler/events';

function fakeReconciler(): DashboardReconciler & {
  fire(e: ReconcilerEvent): void;
  announced: EventBody[];
  approved: string[];
  heals: number;
} {
  const listeners = new Set<(e: ReconcilerEvent) => void>();
  const status: ReconcilerStatus = {
    state: 'idle',
    leader: true,
    cycle: 1,
    stacks: [
      {
        stack: 'fleet',
        apply: 'approve',
        drift: 'warn',
        changes: 2,
        drifted: [],
        waiting: { for: 'approval', reason: 'policy', since: '2026-01-01T00:00:00Z' },
      },
    ],
  };
  const fake = {
    announced: [] as EventBody[],
    approved: [] as string[],
    heals: 0,
    status: () => status,
    subscribe(l: (e: ReconcilerEvent) => void) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    approve(stack: string) {
      fake.approved.push(stack);
      return stack === 'fleet';
    },
    healNow() {
      fake.heals += 1;
    },
    overrideWindows: () => undefined,
    refresh: () => undefined,
    latest: () => ({ project: undefined, plan: undefined }),
    announce(body: EventBody) {
      fake.announced.push(body);
    },
    fire(e: ReconcilerEvent) {
      for (const l of listeners) l(e);
    },
  };
  return fake;
}

test('cycles open on cycle-started and close on cycle-finished or cycle-failed, the newest kept', () => {
  let cycles = nextCycles([], { type: 'cycle-started', at: 'a', cycle: 1, reason: 'start' }, 2);
  expect(cycles).toEqual([{ id: '1', startedAt: 'a', outcome: 'running', summary: 'cycle 1 started (start)' }]);
  cycles = nextCycles(cycles, { type: 'cycle-finished', at: 'b', cycle: 1, seconds: 1.5, changes: 3, drifted: 1 }, 2);
  expect(cycles).toEqual([{ id: '1', startedAt: 'a', finishedAt: 'b', outcome: 'ok', summary: '3 change(s), 1 drifted, 1.5s' }]);
  cycles = nextCycles(cycles, { type: 'cycle-started', at: 'c', cycle: 2, reason: 'commit', commit: 'abcdef0123456789' }, 2);
  cycles = nextCycles(cycles, { type: 'cycle-failed', at: 'd', cycle: 2, error: 'bad code' }, 2);
  cycles = nextCycles(cycles, { type: 'cycle-started', at: 'e', cycle: 3, reason: 'interval' }, 2);
  expect(cycles.map((c) => [c.id, c.outcome])).toEqual([
    ['2', 'failed'],
    ['3', 'running'],
  ]);
  expect(cycles[0]?.summary).toBe('bad code');
});

test('the source shows the cycles and events, hands approvals and heals to the reconciler, and announces actions', async () => {
  const reconciler = fakeReconciler();
  const source = reconcilerDashboardSource(reconciler, { fleetIntervalMs: 1000, rolloutIntervalMs: 500 });
  const changes: SourceChange[] = [];
  source.subscribe((c) => changes.push(c));
  reconciler.fire({ type: 'cycle-started', at: '2026-01-01T00:00:00Z', cycle: 1, reason: 'start' });
  reconciler.fire({
    type: 'approval-needed',
    at: '2026-01-01T00:00:01Z',
    cycle: 1,
    stack: 'fleet',
    reason: "the stack's policy is approve",
    add: 0,
    change: 2,
    destroy: 0,
  });

  const snap = await source.snapshot();
  expect(snap.source).toBe('fleetform reconcile (idle)');
  expect(snap.capabilities).toEqual({ abort: true, resume: true, approve: true, heal: true });
  expect(snap.cycles.map((c) => c.outcome)).toEqual(['running']);
  const events = changes.flatMap((c) => (c.kind === 'event' ? [c.event] : []));
  expect(events).toEqual([
    {
      kind: 'reconciler',
      level: 'warn',
      stack: 'fleet',
      at: '2026-01-01T00:00:01Z',
      message: "waiting for an approval (the stack's policy is approve): 0 to add, 2 to change, 0 to destroy",
    },
  ]);

  expect(await source.approve?.('fleet')).toEqual({ ok: true, message: 'approved: the reconciler applies stack fleet now' });
  expect(await source.approve?.('other')).toEqual({ ok: false, message: 'stack other waits for no approval' });
  expect(reconciler.approved).toEqual(['fleet', 'other']);
  await source.healNow?.();
  await source.resumeRollout?.({ stack: 'fleet' });
  expect(reconciler.heals).toBe(2);
  expect((await source.abortRollout?.({ stack: 'fleet' }))?.ok).toBe(false);
  expect(await source.machine('fleet/picker-1')).toBeUndefined();

  source.notify?.({ kind: 'action', level: 'info', stack: 'fleet', message: 'approve (stack fleet): approved' });
  source.notify?.({ kind: 'action', level: 'error', message: 'heal: failed' });
  expect(reconciler.announced).toEqual([
    { type: 'dashboard-action', ok: true, stack: 'fleet', message: 'approve (stack fleet): approved' },
    { type: 'dashboard-action', ok: false, message: 'heal: failed' },
  ]);
  // Its own dashboard-action events come back from the reconciler; the dashboard logged them already.
  const before = changes.length;
  reconciler.fire({ type: 'dashboard-action', at: '2026-01-01T00:00:02Z', cycle: 1, ok: true, message: 'x' });
  expect(changes.slice(before).every((c) => c.kind === 'snapshot')).toBe(true);
  source.close();
});
