/**
 * The dashboard as a reconciler serves it: the standalone reading of the fleet, rollouts
 * and machines (over the service, state and journals of the project the reconciler
 * loaded), with the reconciler's own plan, drift, cycles and events. Approving and healing
 * go to the reconciler; resuming a rollout releases it when its pacing holds it, then starts
 * a cycle (a cycle resumes a rollout left running); every action taken on the dashboard becomes a reconciler event, so webhooks
 * get it too.
 */
import type { ServiceClient } from '../api/client';
import { driftOf, planView } from '../dashboard/plan-view';
import type { DashboardSource, RolloutTarget, SourceChange, SourceEvent } from '../dashboard/source';
import { standaloneSource, type StandaloneSource } from '../dashboard/standalone-source';
import type { ActionResult, Capabilities, CycleView, DashboardSnapshot, EventLevel } from '../dashboard/view';
import { errorMessage } from '../domain/errors';
import { type Plan, releaseIfPaused, type RolloutJournal } from '../engine';
import { processRedactor, type Redactor } from '../engine/redactor';
import type { ReconcilerEvent, ReconcilerHandle } from './events';
import type { ReconcileProject } from './project';
import { measuredText } from './webhooks';

/** What the dashboard needs of a reconciler: its handle, and what it last loaded and planned. */
export interface DashboardReconciler extends ReconcilerHandle {
  latest(): { readonly project: ReconcileProject | undefined; readonly plan: Plan | undefined };
  announce(body: { type: 'dashboard-action'; stack?: string; ok: boolean; message: string }): void;
}

export interface ReconcilerSourceOptions {
  /** How often machines are read. */
  readonly fleetIntervalMs: number;
  /** How often rollout journals are read. */
  readonly rolloutIntervalMs: number;
  /** The most cycles kept to show. */
  readonly keepCycles?: number;
  /** What every reading, event and machine page passes before it is shown (default the process's). */
  readonly redactor?: Redactor;
}

export interface ReconcilerDashboardSource extends DashboardSource {
  close(): void;
}

/** How long releasing a paused rollout waits for its stack's state lock (a cycle may hold it). */
const RELEASE_LOCK_TIMEOUT_MS = 10_000;

const CAPABILITIES: Capabilities = { abort: true, resume: true, approve: true, heal: true };

/** Events the dashboard's cycles page shows as cycles rather than as events; its own actions it logs already. */
const NOT_LOGGED: ReadonlySet<ReconcilerEvent['type']> = new Set(['cycle-started', 'cycle-finished', 'dashboard-action']);

function levelOf(e: ReconcilerEvent): EventLevel {
  if (e.type === 'cycle-failed' || (e.type === 'apply-finished' && e.failed.length > 0)) return 'error';
  if (
    e.type === 'rollout-stopped' ||
    e.type === 'rollout-paused' ||
    e.type === 'drift-found' ||
    e.type === 'approval-needed' ||
    e.type === 'apply-waiting'
  )
    return 'warn';
  return 'info';
}

/** One line saying what a reconciler event means. */
export function reconcilerEventLine(e: ReconcilerEvent): string {
  switch (e.type) {
    case 'cycle-started':
      return `cycle ${e.cycle} started (${e.reason}${e.commit ? `, commit ${e.commit.slice(0, 12)}` : ''})`;
    case 'cycle-finished':
      return `cycle ${e.cycle} finished in ${e.seconds.toFixed(1)}s: ${e.changes} change(s), ${e.drifted} drifted`;
    case 'cycle-failed':
      return `cycle ${e.cycle} failed: ${e.error}${e.hint ? ` (${e.hint})` : ''}`;
    case 'drift-found':
      return `drift found (${e.policy}): ${e.objects.join(', ')}`;
    case 'drift-healed':
      return `drift healed: ${e.objects.join(', ')}`;
    case 'approval-needed':
      return `waiting for an approval (${e.reason}): ${e.add} to add, ${e.change} to change, ${e.destroy} to destroy`;
    case 'apply-waiting':
      return `apply waiting: ${e.reason}`;
    case 'apply-started':
      return `apply started: ${e.changes} change(s)${e.heal ? ', healing drift' : ''}`;
    case 'apply-finished':
      return `apply finished in ${e.seconds.toFixed(1)}s: ${e.applied} applied${e.failed.length > 0 ? `, failed: ${e.failed.join(', ')}` : ''}`;
    case 'wave-passed':
      return `rollout ${e.rollout}: wave ${e.wave} passed in ${e.seconds.toFixed(1)}s`;
    case 'rollout-paused':
      return `rollout ${e.rollout}: paused at wave ${e.wave}: ${e.reason}`;
    case 'rollout-measurement':
      return `rollout ${e.rollout}: wave ${e.wave} analysis ${e.analysis}: ${e.result} ${measuredText(e)}: ${e.why}`;
    case 'rollout-stopped':
      return `rollout ${e.rollout}: stopped at wave ${e.wave}${e.rolledBack ? ', rolled back' : ''}: ${e.reason}`;
    case 'leader':
      return `${e.holder} ${e.leading ? 'leads' : 'no longer leads'}`;
    case 'dashboard-action':
      return e.message;
  }
}

/** The cycles list after one event: a started cycle is added, a finished or failed one closed. */
export function nextCycles(cycles: readonly CycleView[], e: ReconcilerEvent, keep: number): CycleView[] {
  const id = String(e.cycle);
  if (e.type === 'cycle-started')
    return [...cycles.filter((c) => c.id !== id), { id, startedAt: e.at, outcome: 'running', summary: reconcilerEventLine(e) }].slice(
      -keep,
    );
  if (e.type !== 'cycle-finished' && e.type !== 'cycle-failed') return [...cycles];
  const outcome = e.type === 'cycle-finished' ? 'ok' : 'failed';
  const summary = e.type === 'cycle-finished' ? `${e.changes} change(s), ${e.drifted} drifted, ${e.seconds.toFixed(1)}s` : e.error;
  const found = cycles.some((c) => c.id === id);
  const closed = (c: CycleView): CycleView => ({ ...c, finishedAt: e.at, outcome, summary });
  return found
    ? cycles.map((c) => (c.id === id ? closed(c) : c))
    : [...cycles, closed({ id, startedAt: e.at, outcome, summary })].slice(-keep);
}

export function reconcilerDashboardSource(reconciler: DashboardReconciler, options: ReconcilerSourceOptions): ReconcilerDashboardSource {
  const listeners = new Set<(change: SourceChange) => void>();
  const keep = options.keepCycles ?? 50;
  let cycles: CycleView[] = [];
  let planned: Pick<DashboardSnapshot, 'plan' | 'drift'> = { drift: [] };
  let fleet: { standalone: StandaloneSource; client: ServiceClient; stop: () => void } | undefined;
  let lastFleet: DashboardSnapshot | undefined;

  const empty = (): DashboardSnapshot => ({
    generatedAt: new Date().toISOString(),
    source: '',
    machines: [],
    rollouts: [],
    drift: [],
    cycles: [],
    events: [],
    capabilities: CAPABILITIES,
  });
  const compose = (base: DashboardSnapshot | undefined): DashboardSnapshot => ({
    ...(base ?? empty()),
    source: `fleetform reconcile (${reconciler.status().state})`,
    ...planned,
    cycles,
    capabilities: CAPABILITIES,
  });
  const redactor = options.redactor ?? processRedactor;
  // Every reading, event and page the dashboard shows passes the redactor: no secret reaches a page or the snapshot API.
  const emit = (change: SourceChange): void => {
    const shown = redactor.redactDeep(change);
    for (const l of listeners) l(shown);
  };
  const publish = (): void => emit({ kind: 'snapshot', snapshot: compose(lastFleet) });

  /** The standalone reading, over the service, state and journals of the project the reconciler loaded (made again when its connection changes). */
  const standalone = (): StandaloneSource | undefined => {
    const project = reconciler.latest().project;
    if (fleet && (!project?.fleet || project.fleet.client === fleet.client)) return fleet.standalone;
    if (!project?.fleet) return undefined;
    fleet?.stop();
    fleet?.standalone.close();
    const s = standaloneSource({
      ...project.fleet,
      stacks: async () => (reconciler.latest().project ?? project).stacks.map((st) => st.name),
      declaredRollouts: () => (reconciler.latest().project ?? project).stacks,
      fleetIntervalMs: options.fleetIntervalMs,
      rolloutIntervalMs: options.rolloutIntervalMs,
    });
    const stop = s.subscribe((change) => {
      if (change.kind === 'event') return emit(change);
      lastFleet = change.snapshot;
      publish();
    });
    fleet = { standalone: s, client: project.fleet.client, stop };
    return s;
  };

  const planOf = (): void => {
    const plan = reconciler.latest().plan;
    if (!plan) return;
    const waiting = reconciler.status().stacks.some((s) => s.waiting?.for === 'approval');
    planned = { plan: planView(plan, waiting), drift: driftOf(plan) };
  };

  const unsubscribe = reconciler.subscribe((e) => {
    cycles = nextCycles(cycles, e, keep);
    if (e.type === 'cycle-finished' || e.type === 'cycle-failed' || e.type === 'approval-needed') planOf();
    standalone();
    if (!NOT_LOGGED.has(e.type))
      emit({
        kind: 'event',
        event: {
          kind: 'reconciler',
          level: levelOf(e),
          message: reconcilerEventLine(e),
          at: e.at,
          ...('stack' in e && e.stack ? { stack: e.stack } : {}),
        },
      });
    publish();
  });

  const noProject: ActionResult = { ok: false, message: 'the reconciler has not loaded the project yet' };

  return {
    async snapshot() {
      const s = standalone();
      if (s) lastFleet = await s.snapshot();
      return redactor.redactDeep(compose(lastFleet));
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async machine(key) {
      return redactor.redactDeep(await standalone()?.machine(key));
    },
    async models() {
      return redactor.redactDeep((await standalone()?.models?.()) ?? []);
    },
    async abortRollout(target: RolloutTarget) {
      const s = standalone();
      return s?.abortRollout ? s.abortRollout(target) : noProject;
    },
    async resumeRollout(target: RolloutTarget) {
      // A rollout its pacing holds is released first; the cycle then goes on from the wave it was held at.
      const fleet = reconciler.latest().project?.fleet;
      let released: RolloutJournal | undefined;
      try {
        released = fleet
          ? await releaseIfPaused({ ...target, journals: fleet.journals, backend: fleet.backend, lockTimeoutMs: RELEASE_LOCK_TIMEOUT_MS })
          : undefined;
      } catch (err) {
        return { ok: false, message: errorMessage(err) };
      }
      reconciler.healNow();
      const what = released ? `rollout ${released.plan.policy.name} released at wave ${released.wave}; ` : '';
      return { ok: true, message: `${what}a cycle starts now; it resumes the rollout of stack ${target.stack} from its wave` };
    },
    async approve(stack: string) {
      if (!reconciler.approve(stack)) return { ok: false, message: `stack ${stack} waits for no approval` };
      return { ok: true, message: `approved: the reconciler applies stack ${stack} now` };
    },
    async healNow() {
      reconciler.healNow();
      return { ok: true, message: 'a cycle starts now: drift is checked and healed by policy' };
    },
    notify(event: SourceEvent) {
      reconciler.announce({
        type: 'dashboard-action',
        ok: event.level !== 'error',
        message: event.message,
        ...(event.stack ? { stack: event.stack } : {}),
      });
    },
    close() {
      unsubscribe();
      fleet?.stop();
      fleet?.standalone.close();
      listeners.clear();
    },
  };
}
