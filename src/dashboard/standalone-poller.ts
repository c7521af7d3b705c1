/**
 * What `fleetform dashboard` reads without a reconciler, on intervals: the state and the
 * service (machines and module cards), the rollout journals, and the pending plan when it is
 * given a way to make one. A reading that changes the snapshot is pushed to the listeners.
 */
import type { ServiceClient } from '../api/client';
import {
  fragmentKind,
  machineHealth,
  type MachineHealth,
  type MachineRun,
  machineRuns,
  type MachineStatusSource,
  moduleCards,
  runKey,
  serviceStatusSource,
  trainingProgress,
  modelHistories,
  withFailedTraining,
  type ModelHistory,
} from '../engine/readings';
import { isObject } from '../domain/json-value';
import { isUnfinished, type Plan, type RolloutJournal, type RolloutJournalStore, type State, type StateBackend } from '../engine';
import { processRedactor } from '../engine/redactor';
import { describeFailure } from './failure-text';
import { fleetMachines, unnamedLocations } from './fleet-view';
import { keyNamesReader } from './key-names';
import { locationNames } from './location-names';
import { machineDetail, partSecretTexts, withoutSecrets } from './machine-detail';
import { driftOf, planView } from './plan-view';
import { rolloutChanges } from './rollout-changes';
import { declaresRollout, rolloutView, type DeclaredRollouts, type FailureNote } from './rollout-view';
import type { SourceChange, SourceEvent } from './source';
import type { Capabilities, DashboardSnapshot, MachineDetail } from './view';

export interface PollerInput {
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
  /** The rollouts the code declares now (undefined until the code is read): the others are shown as history. */
  readonly declaredRollouts?: () => readonly DeclaredRollouts[] | undefined;
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

/** The readings of one dashboard: what it last read is its fields; each read is a method. */
export class FleetPoller {
  private readonly listeners = new Set<(change: SourceChange) => void>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;
  private statusSource: Promise<MachineStatusSource> | undefined;
  private states: State[] = [];
  private health: MachineHealth[] = [];
  private runs = new Map<string, MachineRun>();
  private readonly locations: ReturnType<typeof locationNames>;
  private readonly keyNames: ReturnType<typeof keyNamesReader>;
  /** What is known of failed machines, by rollout key and started time, then machine address. */
  private readonly failures = new Map<string, Map<string, FailureNote>>();
  private first: Promise<void> | undefined;
  private current: DashboardSnapshot;

  constructor(
    private readonly input: PollerInput,
    capabilities: Capabilities,
  ) {
    this.locations = locationNames(async (id) => (await input.client.appClient.getLocation(id)).name);
    this.keyNames = keyNamesReader(input.client);
    this.current = {
      generatedAt: new Date().toISOString(),
      source: 'fleetform dashboard',
      machines: [],
      rollouts: [],
      drift: [],
      cycles: [],
      events: [],
      capabilities,
    };
  }

  /** The latest reading, after the first. */
  async snapshot(): Promise<DashboardSnapshot> {
    await this.start();
    return this.current;
  }

  subscribe(listener: (change: SourceChange) => void): () => void {
    this.listeners.add(listener);
    void this.start();
    return () => this.listeners.delete(listener);
  }

  event(e: SourceEvent): void {
    this.emit({ kind: 'event', event: e });
  }

  /** The machines' status source, made once. */
  statuses(): Promise<MachineStatusSource> {
    return (this.statusSource ??= serviceStatusSource(this.input.client));
  }

  /** One machine's page, by `stack/machine`. */
  async machine(key: string): Promise<MachineDetail | undefined> {
    await this.start();
    const machine = this.current.machines.find((m) => m.key === key);
    if (!machine) return undefined;
    const state = this.states.find((s) => s.stack === machine.stack);
    const [address, entry] = Object.entries(state?.resources ?? {}).find(([, e]) => e.ids.part_id === machine.partId) ?? [];
    return machineDetail({
      client: this.input.client,
      machine,
      health: this.health.find((h) => h.partId === machine.partId),
      entry,
      fragmentNames: fragmentNames(this.states),
      run: address === undefined ? undefined : this.runs.get(runKey(machine.stack, address)),
      keyNames: await this.keyNames(),
    });
  }

  /** Each promoted model's history, read from the states now, with its failed training jobs' last log lines. */
  async models(): Promise<ModelHistory[]> {
    const states = await Promise.all((await this.input.stacks()).map((n) => this.input.backend.read(n)));
    const histories = modelHistories(states);
    if (histories.length === 0) return [];
    // A failed job's log lines are what the user's app printed: a secret this process knows is redacted from them.
    return processRedactor.redactDeep(
      await withFailedTraining(this.input.client, histories, await trainingProgress(this.input.client, states)),
    );
  }

  /** Reads the fleet and the rollouts once now (the intervals go on). */
  async refresh(): Promise<void> {
    await this.readFleet();
    await this.readRollouts().catch((err: unknown) => this.event({ kind: 'read', level: 'error', message: describeFailure(err) }));
  }

  /** The first reading, then the intervals: once, however many ask. */
  start(): Promise<void> {
    if (this.first) return this.first;
    const first = this.refresh();
    this.first = first;
    void first.finally(() => {
      this.every(this.input.fleetIntervalMs, () => this.readFleet());
      this.every(this.input.rolloutIntervalMs, () => this.readRollouts());
      if (this.input.pendingPlan)
        void this.readPlan().finally(() => this.every(this.input.planIntervalMs ?? 60_000, () => this.readPlan()));
    });
    return first;
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.listeners.clear();
  }

  async readRollouts(): Promise<void> {
    const journals = (await Promise.all((await this.input.stacks()).map((s) => this.input.journals.list(s)))).flat();
    const declared = this.input.declaredRollouts?.();
    const views = await Promise.all(
      journals.map(async (j) => {
        const state = this.states.find((st) => st.stack === j.stack);
        const now = {
          ...(declared ? { declared: declaresRollout(declared, j) } : {}),
          ...(state ? { existing: new Set(Object.keys(state.resources)) } : {}),
        };
        const locked = isUnfinished(j.status) && (await this.input.backend.lockHolder(j.stack)) !== undefined;
        return rolloutView(j, await this.notesOf(j), locked, now);
      }),
    );
    const before = new Map(this.current.rollouts.map((r) => [r.key, r]));
    const changed = views.flatMap((v) => rolloutChanges(before.get(v.key), v));
    if (JSON.stringify(views) !== JSON.stringify(this.current.rollouts)) this.publish({ rollouts: views });
    // Rollouts already over when the dashboard started are shown, not replayed as events.
    if (before.size > 0 || this.current.machines.length > 0) for (const e of changed) this.event(e);
  }

  private async readFleet(): Promise<void> {
    try {
      const names = await this.input.stacks();
      const states = await Promise.all(names.map((n) => this.input.backend.read(n)));
      this.states = states;
      const [h, running, others] = await Promise.all([
        machineHealth(this.input.client, states),
        machineRuns(this.input.client, states),
        this.locations(unnamedLocations(states)),
      ]);
      const cards = await moduleCards(this.input.client, states, running);
      this.health = h;
      this.runs = running;
      const { readError: _gone, ...rest } = this.current;
      this.current = rest;
      this.publish({ machines: fleetMachines(h, cards, states, others) });
    } catch (err) {
      this.publish({ readError: describeFailure(err) });
    }
  }

  private async readPlan(): Promise<void> {
    if (!this.input.pendingPlan) return;
    try {
      const plan = await this.input.pendingPlan();
      const { planError: _gone, ...rest } = this.current;
      this.current = rest;
      this.publish({ plan: planView(plan), drift: driftOf(plan) });
    } catch (err) {
      this.publish({ planError: describeFailure(err) });
    }
  }

  /** Notes of a journal's failed machines: those the journal says failed, and rolled-back ones whose log shows an error since it started. */
  private async notesOf(j: RolloutJournal): Promise<Map<string, FailureNote>> {
    const id = `${j.stack}~${j.plan.policy.name}@${j.started_at}`;
    const notes = this.failures.get(id) ?? new Map<string, FailureNote>();
    this.failures.set(id, notes);
    const source = await this.statuses();
    for (const m of j.machines) {
      if (notes.has(m.address) || (m.result !== 'failed' && m.result !== 'rolled back')) continue;
      const lines = (await source.errorLines(m.part_id, 3)).filter((l) => l.slice(0, 24) >= j.started_at.slice(0, 24));
      const problems = (this.health.find((h) => h.partId === m.part_id)?.modules ?? [])
        .filter((x) => x.error !== '')
        .map((x) => ({ what: `module ${x.name}`, error: x.error }));
      if (m.result !== 'failed' && lines.length === 0) continue;
      // A crashing module may log its env: its part's secrets are hidden in what the page shows of it.
      const entry = this.states.find((st) => st.stack === j.stack)?.resources[m.address] ?? m.prior;
      // Until its config can be read, the machine has no note (tried again at the next reading).
      const secrets = await partSecretTexts(this.input.client, m.part_id, entry).catch(() => undefined);
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
  }

  private emit(change: SourceChange): void {
    for (const l of this.listeners) l(change);
  }

  private publish(next: Partial<DashboardSnapshot>): void {
    this.current = { ...this.current, ...next, generatedAt: new Date().toISOString() };
    this.emit({ kind: 'snapshot', snapshot: this.current });
  }

  private every(ms: number, read: () => Promise<void>): void {
    const loop = (): void => {
      if (this.closed) return;
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        void read()
          .catch((err: unknown) => this.event({ kind: 'read', level: 'error', message: describeFailure(err) }))
          .finally(loop);
      }, ms);
      this.timers.add(timer);
    };
    loop();
  }

  /** The pending plan as last read, for an approval. */
  get plan(): DashboardSnapshot['plan'] {
    return this.current.plan;
  }
}
