/**
 * The dashboard's own source, without a reconciler: it reads the state and the service on
 * an interval (machines, module cards, rollout journals, and the pending plan when it is
 * given a way to make one), and takes the actions that exist without a reconciler:
 * aborting a rollout, and resuming one when it is given a way to.
 */
import type { ServiceClient } from '../api/client';
import { serviceStatusSource } from '../engine/health/service-status-source';
import type { MachineStatusSource } from '../engine/health/machine-status-source';
import { isObject } from '../engine/json';
import { fragmentKind } from '../engine/kinds/fragment';
import { machineHealth, type MachineHealth } from '../engine/kinds/machine-health';
import { moduleCards } from '../engine/kinds/module-cards';
import { machineRuns, runKey, type MachineRun } from '../engine/kinds/machine-runs';
import type { Plan } from '../engine/plan/model';
import { abortRollout } from '../engine/rollout/abort';
import { eventLine, type RolloutEvent } from '../engine/rollout/events';
import type { RolloutJournal, RolloutJournalStore } from '../engine/rollout/journal';
import type { StateBackend } from '../engine/state/backend';
import type { State } from '../engine/state/schema';
import { describeFailure } from './failure-text';
import { fleetMachines, unnamedLocations } from './fleet-view';
import { keyNamesReader } from './key-names';
import { locationNames } from './location-names';
import { machineDetail, partSecretTexts, withoutSecrets } from './machine-detail';
import { driftOf, planView } from './plan-view';
import { declaresRollout, rolloutView, type DeclaredRollouts, type FailureNote } from './rollout-view';
import type { DashboardSource, RolloutTarget, SourceChange, SourceEvent } from './source';
import type { ActionResult, DashboardSnapshot, RolloutView } from './view';
import { isUnfinished } from '../engine/rollout/journal-pacing';

export interface StandaloneSourceInput {
  readonly client: ServiceClient;
  readonly backend: StateBackend;
  readonly journals: RolloutJournalStore;
  /** The stacks to show. */
  readonly stacks: () => Promise<string[]>;
  /** How often machines and module cards are read. */
  readonly fleetIntervalMs: number;
  /** How often rollout journals are read (a running rollout shows as it moves). */
  readonly rolloutIntervalMs: number;
  /** Makes the pending plan; without it the plans and drift pages say there is none. */
  readonly pendingPlan?: () => Promise<Plan>;
  readonly planIntervalMs?: number;
  /** Continues an interrupted rollout (e.g. by running apply for its stack), reporting its progress as events. */
  readonly resume?: (target: RolloutTarget, report: (event: SourceEvent) => void) => Promise<ActionResult>;
  /** Applies the pending plan the dashboard shows (the plan last made by `pendingPlan`), reporting its progress as events. */
  readonly approve?: (stack: string, report: (event: SourceEvent) => void) => Promise<ActionResult>;
  /** How long an abort waits for the state lock. */
  readonly lockTimeoutMs?: number;
  /** The rollouts the code declares now (undefined until the code is read): the others are shown as history. */
  readonly declaredRollouts?: () => readonly DeclaredRollouts[] | undefined;
}

export interface StandaloneSource extends DashboardSource {
  /** Reads everything once now (the intervals go on). */
  refresh(): Promise<void>;
  close(): void;
}

function fragmentNames(states: readonly State[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const s of states) {
    for (const e of Object.values(s.resources)) {
      if (e.type === fragmentKind.type && e.ids.id && isObject(e.attributes) && typeof e.attributes.name === 'string')
        names.set(e.ids.id, e.attributes.name);
    }
  }
  return names;
}

/**
 * Events for what moved in a rollout since the last reading: a new wave, a machine's new
 * result, the end; each at the time its journal says (its start, or its last update).
 */
export function rolloutChanges(before: RolloutView | undefined, after: RolloutView): SourceEvent[] {
  const out: SourceEvent[] = [];
  const head = `rollout ${after.name} (stack ${after.stack})`;
  const at = after.updatedAt;
  if (!before || before.startedAt !== after.startedAt)
    out.push({
      kind: 'rollout',
      level: 'info',
      stack: after.stack,
      at: after.startedAt,
      message: `${head}: started, ${after.waves.length} wave(s)`,
    });
  else if (before.wave !== after.wave)
    out.push({ kind: 'rollout', level: 'info', stack: after.stack, at, message: `${head}: wave ${after.wave} of ${after.waves.length}` });
  const old = new Map((before?.startedAt === after.startedAt ? before.waves : []).flatMap((w) => w.machines).map((m) => [m.address, m]));
  for (const w of after.waves) {
    for (const m of w.machines) {
      const was = old.get(m.address);
      if (was?.state === m.state && was.failed === m.failed) continue;
      if (m.state === 'waiting' || m.state === 'not reached' || m.state === 'gone') continue;
      const level = m.failed ? 'error' : m.state === 'rolled back' ? 'warn' : 'info';
      out.push({
        kind: 'rollout',
        level,
        stack: after.stack,
        at,
        message: `${head}: wave ${w.number}: ${m.name} ${m.failed && m.state !== 'failed' ? `failed, ${m.state}` : m.state}${m.log ? `; log: ${m.log}` : ''}`,
      });
    }
  }
  if (before?.status !== after.status && after.status !== 'running') {
    out.push({
      kind: 'rollout',
      level: after.status === 'completed' ? 'info' : 'warn',
      stack: after.stack,
      at,
      message: `${head}: ${after.status}${after.reason ? `: ${after.reason}` : ''}`,
    });
  }
  return out;
}

export function standaloneSource(input: StandaloneSourceInput): StandaloneSource {
  const listeners = new Set<(change: SourceChange) => void>();
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;
  let statusSource: Promise<MachineStatusSource> | undefined;
  let states: State[] = [];
  let health: MachineHealth[] = [];
  let runs = new Map<string, MachineRun>();
  const locations = locationNames(async (id) => (await input.client.appClient.getLocation(id)).name);
  const keyNames = keyNamesReader(input.client);
  /** What is known of failed machines, by rollout key and started time, then machine address. */
  const failures = new Map<string, Map<string, FailureNote>>();
  let snapshot: DashboardSnapshot = {
    generatedAt: new Date().toISOString(),
    source: 'fleetform dashboard',
    machines: [],
    rollouts: [],
    drift: [],
    cycles: [],
    events: [],
    capabilities: {
      abort: true,
      resume: input.resume !== undefined,
      approve: input.approve !== undefined && input.pendingPlan !== undefined,
      heal: false,
    },
  };

  const emit = (change: SourceChange): void => {
    for (const l of listeners) l(change);
  };
  const event = (e: SourceEvent): void => emit({ kind: 'event', event: e });
  const publish = (next: Partial<DashboardSnapshot>): void => {
    snapshot = { ...snapshot, ...next, generatedAt: new Date().toISOString() };
    emit({ kind: 'snapshot', snapshot });
  };
  const statuses = (): Promise<MachineStatusSource> => (statusSource ??= serviceStatusSource(input.client));

  /** Notes of a journal's failed machines: those the journal says failed, and rolled-back ones whose log shows an error since it started. */
  const notesOf = async (j: RolloutJournal): Promise<Map<string, FailureNote>> => {
    const id = `${j.stack}~${j.plan.policy.name}@${j.started_at}`;
    const notes = failures.get(id) ?? new Map<string, FailureNote>();
    failures.set(id, notes);
    const source = await statuses();
    for (const m of j.machines) {
      if (notes.has(m.address) || (m.result !== 'failed' && m.result !== 'rolled back')) continue;
      const lines = (await source.errorLines(m.part_id, 3)).filter((l) => l.slice(0, 24) >= j.started_at.slice(0, 24));
      const problems = (health.find((h) => h.partId === m.part_id)?.modules ?? [])
        .filter((x) => x.error !== '')
        .map((x) => ({ what: `module ${x.name}`, error: x.error }));
      if (m.result !== 'failed' && lines.length === 0) continue;
      // A crashing module may log its env: its part's secrets are hidden in what the page shows of it.
      const entry = states.find((st) => st.stack === j.stack)?.resources[m.address] ?? m.prior;
      // Until its config can be read, the machine has no note (tried again at the next reading).
      const secrets = await partSecretTexts(input.client, m.part_id, entry).catch(() => undefined);
      if (secrets === undefined) continue;
      const text = (t: string): string => withoutSecrets(t, secrets);
      const log = lines[0] === undefined ? undefined : text(lines[0]);
      notes.set(m.address, {
        ...(log ? { log } : {}),
        ...(problems.length > 0 ? { problems: problems.map((x) => ({ what: x.what, error: text(x.error) })) } : {}),
        why: m.result === 'failed' ? 'failed its health gate' : 'failed its health gate, then was rolled back',
      });
    }
    return notes;
  };

  const readRollouts = async (): Promise<void> => {
    const journals = (await Promise.all((await input.stacks()).map((s) => input.journals.list(s)))).flat();
    const declared = input.declaredRollouts?.();
    const views = await Promise.all(
      journals.map(async (j) => {
        const state = states.find((st) => st.stack === j.stack);
        const now = {
          ...(declared ? { declared: declaresRollout(declared, j) } : {}),
          ...(state ? { existing: new Set(Object.keys(state.resources)) } : {}),
        };
        const locked = isUnfinished(j.status) && (await input.backend.lockHolder(j.stack)) !== undefined;
        return rolloutView(j, await notesOf(j), locked, now);
      }),
    );
    const before = new Map(snapshot.rollouts.map((r) => [r.key, r]));
    const changed = views.flatMap((v) => rolloutChanges(before.get(v.key), v));
    if (JSON.stringify(views) !== JSON.stringify(snapshot.rollouts)) publish({ rollouts: views });
    // Rollouts already over when the dashboard started are shown, not replayed as events.
    if (before.size > 0 || snapshot.machines.length > 0) for (const e of changed) event(e);
  };

  const readFleet = async (): Promise<void> => {
    try {
      const names = await input.stacks();
      states = await Promise.all(names.map((n) => input.backend.read(n)));
      const [h, running, others] = await Promise.all([
        machineHealth(input.client, states),
        machineRuns(input.client, states),
        locations(unnamedLocations(states)),
      ]);
      const cards = await moduleCards(input.client, states, running);
      health = h;
      runs = running;
      const { readError: _gone, ...rest } = snapshot;
      snapshot = rest;
      publish({ machines: fleetMachines(h, cards, states, others) });
    } catch (err) {
      publish({ readError: describeFailure(err) });
    }
  };

  const readPlan = async (): Promise<void> => {
    if (!input.pendingPlan) return;
    try {
      const plan = await input.pendingPlan();
      const { planError: _gone, ...rest } = snapshot;
      snapshot = rest;
      publish({ plan: planView(plan), drift: driftOf(plan) });
    } catch (err) {
      publish({ planError: describeFailure(err) });
    }
  };

  const every = (ms: number, read: () => Promise<void>): void => {
    const loop = (): void => {
      if (closed) return;
      const timer = setTimeout(() => {
        timers.delete(timer);
        void read()
          .catch((err: unknown) => event({ kind: 'read', level: 'error', message: describeFailure(err) }))
          .finally(loop);
      }, ms);
      timers.add(timer);
    };
    loop();
  };

  let first: Promise<void> | undefined;
  const refresh = async (): Promise<void> => {
    await readFleet();
    await readRollouts().catch((err: unknown) => event({ kind: 'read', level: 'error', message: describeFailure(err) }));
  };
  const start = (): Promise<void> => {
    if (first) return first;
    first = refresh();
    void first.finally(() => {
      every(input.fleetIntervalMs, readFleet);
      every(input.rolloutIntervalMs, readRollouts);
      if (input.pendingPlan) {
        void readPlan().finally(() => every(input.planIntervalMs ?? 60_000, readPlan));
      }
    });
    return first;
  };

  const abort = async (target: RolloutTarget): Promise<ActionResult> => {
    const lock = await input.backend.lock(target.stack, 'dashboard rollout abort', { timeoutMs: input.lockTimeoutMs ?? 0 });
    try {
      const { journal, machines } = await abortRollout({
        stack: target.stack,
        ...(target.rollout === undefined ? {} : { rollout: target.rollout }),
        journals: input.journals,
        backend: input.backend,
        client: input.client,
        source: await statuses(),
        events: (e: RolloutEvent) =>
          event({
            kind: 'rollout',
            level: e.type === 'rolled-back' && !e.ok ? 'error' : 'info',
            stack: target.stack,
            message: eventLine(e),
          }),
        concurrency: 16,
      });
      const failed = machines.filter((m) => !m.rollback?.ok).length;
      return {
        ok: failed === 0,
        message: `rollout ${journal.plan.policy.name}: ${machines.length - failed} machine(s) rolled back${failed > 0 ? `, ${failed} not` : ''}`,
      };
    } finally {
      await lock.release();
      await readRollouts().catch(() => undefined);
    }
  };

  const source: StandaloneSource = {
    async snapshot() {
      await start();
      return snapshot;
    },
    subscribe(listener) {
      listeners.add(listener);
      void start();
      return () => listeners.delete(listener);
    },
    async machine(key) {
      await start();
      const machine = snapshot.machines.find((m) => m.key === key);
      if (!machine) return undefined;
      const state = states.find((s) => s.stack === machine.stack);
      const [address, entry] = Object.entries(state?.resources ?? {}).find(([, e]) => e.ids.part_id === machine.partId) ?? [];
      return machineDetail({
        client: input.client,
        machine,
        health: health.find((h) => h.partId === machine.partId),
        entry,
        fragmentNames: fragmentNames(states),
        run: address === undefined ? undefined : runs.get(runKey(machine.stack, address)),
        keyNames: await keyNames(),
      });
    },
    abortRollout: abort,
    ...(input.resume ? { resumeRollout: (target: RolloutTarget) => input.resume!(target, event) } : {}),
    ...(input.approve && input.pendingPlan
      ? {
          approve: async (stack: string) => {
            const plan = snapshot.plan;
            if (!plan) return { ok: false, message: 'no plan has been made yet' };
            if (!plan.stacks.includes(stack))
              return { ok: false, message: `the pending plan has no stack ${stack} (its stacks: ${plan.stacks.join(', ')})` };
            if (!plan.hasChanges) return { ok: false, message: 'the pending plan changes nothing' };
            return input.approve!(stack, event);
          },
        }
      : {}),
    refresh,
    close() {
      closed = true;
      for (const t of timers) clearTimeout(t);
      listeners.clear();
    },
  };
  return source;
}
