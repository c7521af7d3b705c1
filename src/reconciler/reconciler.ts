/**
 * The reconcile loop of one project: each cycle fetches the code, synthesizes it when it
 * changed, plans every stack against the service (which finds drift), and per stack applies,
 * waits for an approval or a window, or only reports, by its policy. A new commit starts a
 * cycle at once; a cycle also runs every interval. Only the leader (the holder of the
 * project's lease) cycles; other reconcilers of the project wait and take over when it goes.
 */
import * as os from 'node:os';
import { FleetformError, errorMessage } from '../domain/errors';
import {
  type ApplyReporter,
  type DesiredStack,
  heldText,
  LocationWindows,
  type Plan,
  type ResourceChange,
  type RolloutEvent,
  type RolloutJournal,
  rolloutJournalKeys,
  type State,
  waveHold,
  type WindowClock,
  withWindowHolds,
} from '../engine';
import type { EventBody, ReconcilerEvent, ReconcilerHandle, ReconcilerStatus, StackStatus } from './events';
import type { Logger } from './log';
import { isDrift, stackPolicy, type Defaults, type StackPolicy } from './policy';
import type { DependencyInstaller, ProjectLoader, ReconcileProject } from './project';
import type { ProjectSource, Revision } from './source';
import { opensAt, windowVerdict, type WindowVerdict } from '../domain/sync-windows';
import { waveEndText } from '../domain/rollout';
import { baselineOf, checkDrift, type CheckBaseline } from './drift-check';
import { decideStack, type LocationWait, type StackWait } from './stack-decision';
import { processRedactor, type Redactor } from '../engine/redactor';
import { causeOf, DEFAULT_BACKOFF_MAX_MS, nextStreak, type FailureStage, type FailureStreak } from './backoff';

export interface ReconcilerSettings extends Defaults {
  readonly source: ProjectSource;
  readonly loader: ProjectLoader;
  /** Installs a fetched commit's dependencies before its app runs (a git checkout's; none for a folder, which is the user's own). */
  readonly dependencies?: DependencyInstaller;
  /** How often a cycle looks for drift. */
  readonly intervalMs: number;
  /** How often the source is asked for a new commit between cycles. */
  readonly pollMs: number;
  /** A plan destroying more objects than this waits for an approval, whatever the policy. */
  readonly maxDestroy: number;
  readonly logger: Logger;
  /** Who this reconciler is, in the lease and in events (default host:pid). */
  readonly holder?: string;
  readonly now?: () => number;
  /**
   * The share of the interval a drift check spreads its reads over (default 0.5: a drift is
   * still found within one interval); 0 reads all at once.
   */
  readonly spreadShare?: number;
  /** How long drift checks may stand for a full plan of an unchanged commit (default an hour): then a cycle plans in full again. */
  readonly fullPlanEveryMs?: number;
  /** What every event and error text passes before anyone sees it (default the process's). */
  readonly redactor?: Redactor;
  /** The longest wait between failing cycles (default 10 minutes); the first is the poll interval, doubled at each failure. */
  readonly backoffMaxMs?: number;
}

/** Reads in flight at most in a drift check's slice. */
const CHECK_PARALLELISM = 32;
const DEFAULT_FULL_PLAN_EVERY_MS = 3_600_000;
/** The head of a source that cannot be read now (a remote repository out of reach): no new commit to try. */
const UNREADABLE_HEAD = 'unreadable';

type CycleReason = Extract<ReconcilerEvent, { type: 'cycle-started' }>['reason'];

interface StackMemory {
  status: StackStatus;
  /** The drifted objects last reported, so a lasting drift is reported once. */
  reportedDrift: string;
  /** The fingerprint of the changes an approval was asked for, and the one approved. */
  asked?: string;
  approved?: string;
  waitingFingerprint?: string;
  windowSaid?: string;
  /** The machines held by their locations' windows last said, so a lasting hold is said once. */
  heldSaid?: string;
  /** A rollout that stopped (its gate failed) on this revision: the stack applies nothing more of it until a new commit or a retry. */
  stopped?: { readonly revision: string; readonly text: string; said: boolean };
}

const noReporter: ApplyReporter = { start: () => undefined, done: () => undefined, failed: () => undefined, skipped: () => undefined };

function message(err: unknown): { error: string; hint?: string; where?: string } {
  if (err instanceof FleetformError)
    return { error: err.message, ...(err.hint ? { hint: err.hint } : {}), ...(err.path ? { where: err.path } : {}) };
  return { error: errorMessage(err) };
}

export class Reconciler implements ReconcilerHandle {
  private readonly listeners = new Set<(e: ReconcilerEvent) => void>();
  private readonly stacks = new Map<string, StackMemory>();
  private state: ReconcilerStatus['state'] = 'starting';
  private leading = false;
  private releaseLease: (() => Promise<void>) | undefined;
  private cycleNumber = 0;
  private revision: Revision | undefined;
  private project: ReconcileProject | undefined;
  /** A revision whose app or config failed to load, and how: its cycles fail the same way until a new one comes. */
  private broken: { id: string; error: unknown } | undefined;
  /** The failing cycles in a row, while they fail. */
  private streak: FailureStreak | undefined;
  /** The step the cycle under way is at, for what a failure names. */
  private stage: FailureStage = 'fetch';
  private lastCycle: ReconcilerStatus['lastCycle'];
  private nextCheckAt: number | undefined;
  private trigger: CycleReason | undefined;
  /** A new commit is to be looked for before the next poll is due. */
  private refreshAsked = false;
  private wake: (() => void) | undefined;
  private stopping = false;
  private loop: Promise<void> | undefined;
  private override: { mode: 'open' | 'closed'; untilMs: number | undefined } | undefined;
  private windowChangeAt: number | undefined;
  /** The stacks a paused rollout holds, with how their journals read then: a release (`rollout resume`) makes the next cycle plan in full. */
  private readonly pausedJournals = new Map<string, string>();
  private lastPlan: Plan | undefined;
  /** What the last full plan found, while drift checks may stand for the next one. */
  private baseline: CheckBaseline | undefined;
  private lastCounts = { changes: 0, drifted: 0 };
  private lastPolledAt = 0;
  /** The project's windows per location, as the last full plan found its machines. */
  private locations: LocationWindows | undefined;
  readonly holder: string;

  constructor(private readonly settings: ReconcilerSettings) {
    this.holder = settings.holder ?? `${os.hostname()}:${process.pid}`;
  }

  private now(): number {
    return this.settings.now?.() ?? Date.now();
  }

  private redactor(): Redactor {
    return this.settings.redactor ?? processRedactor;
  }

  // ---- the handle ----

  status(): ReconcilerStatus {
    const override = this.activeOverride();
    return {
      state: this.state,
      leader: this.leading,
      cycle: this.cycleNumber,
      ...(this.revision?.commit ? { commit: this.revision.commit } : {}),
      ...(this.lastCycle ? { lastCycle: this.lastCycle } : {}),
      ...(this.nextCheckAt ? { nextCheckAt: new Date(this.nextCheckAt).toISOString() } : {}),
      stacks: [...this.stacks.values()].map((m) => this.withWindowHeld(m.status)),
      ...(this.streak ? { failing: failingView(this.streak) } : {}),
      ...(override
        ? { override: { windows: override.mode, ...(override.untilMs ? { until: new Date(override.untilMs).toISOString() } : {}) } }
        : {}),
    };
  }

  /** A stack's status with how many of its changes the last plan's windows would hold now. */
  private withWindowHeld(status: StackStatus): StackStatus {
    const holds = this.lastPlan?.windows?.holds.filter((h) => h.stack === status.stack);
    return holds && holds.length > 0 ? { ...status, windowHeld: holds.length } : status;
  }

  subscribe(listener: (e: ReconcilerEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  approve(stack: string): boolean {
    const m = this.stacks.get(stack);
    if (m?.stopped) {
      m.stopped = undefined;
      this.settings.logger.log('info', 'retry of the stopped rollout approved', { stack });
      this.kick('approval');
      return true;
    }
    if (!m?.asked) return false;
    m.approved = m.asked;
    this.settings.logger.log('info', 'approval given', { stack });
    this.kick('approval');
    return true;
  }

  healNow(): void {
    this.kick('heal-now');
  }

  refresh(): void {
    this.refreshAsked = true;
    this.wake?.();
  }

  overrideWindows(mode: 'open' | 'closed' | undefined, untilMs?: number): void {
    this.override = mode ? { mode, untilMs } : undefined;
    this.settings.logger.log(
      'info',
      mode ? `windows overridden: ${mode}${untilMs ? ` until ${new Date(untilMs).toISOString()}` : ''}` : 'window override cleared',
    );
    this.kick('window');
  }

  /** The project last loaded and its last plan (a full plan, with a targeted plan's changes in place since); undefined before the first and while a full plan runs. */
  latest(): { readonly project: ReconcileProject | undefined; readonly plan: Plan | undefined } {
    return { project: this.project, plan: this.lastPlan };
  }

  /** Emits an event that happened outside the loop (an action taken on the dashboard), stamped like the loop's own. */
  announce(body: EventBody): void {
    this.emit(body);
  }

  // ---- running ----

  /** Starts the loop; `stop` ends it. */
  start(): void {
    this.loop ??= this.run();
  }

  /** Ends the loop after the cycle under way (a rollout pauses at its next wave boundary), and gives up the lease. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
    await this.releaseLease?.().catch(() => undefined);
    this.releaseLease = undefined;
    this.leading = false;
    this.state = 'stopped';
  }

  private kick(reason: CycleReason): void {
    this.trigger = reason;
    this.wake?.();
  }

  private emit(body: EventBody): void {
    // Events reach webhooks, logs, pages and the API: none carries a secret the process knows.
    const event = this.redactor().redactDeep({
      ...body,
      at: new Date(this.now()).toISOString(),
      cycle: this.cycleNumber,
    } as ReconcilerEvent);
    for (const l of this.listeners) {
      try {
        l(event);
      } catch (err) {
        this.settings.logger.log('warn', 'an event listener failed', { error: message(err).error });
      }
    }
  }

  private async run(): Promise<void> {
    let reason: CycleReason = 'start';
    while (!this.stopping) {
      if (!(await this.ensureLeading())) {
        this.state = 'standby';
        if (this.streak) reason = await this.waitOutFailure();
        else await this.pause(this.settings.pollMs);
        continue;
      }
      this.state = 'cycling';
      const started = this.now();
      await this.cycle(reason);
      this.state = 'idle';
      this.nextCheckAt = started + this.settings.intervalMs;
      reason = this.streak ? await this.waitOutFailure() : await this.waitForNext();
    }
  }

  /** Whether this reconciler leads: it takes the lease when it is free (a project must be loaded to know where). */
  private async ensureLeading(): Promise<boolean> {
    if (this.leading) return true;
    try {
      const project = await this.loadIfNew();
      if (!project) return false;
      const release = await project.lead(this.holder);
      if (!release) return false;
      this.releaseLease = release;
      this.leading = true;
      this.settings.logger.log('info', 'leading the project', { holder: this.holder });
      this.emit({ type: 'leader', holder: this.holder, leading: true });
      return true;
    } catch (err) {
      // A broken commit or an unreachable lease is a failure like a cycle's: announced once per cause and commit, then waited out.
      await this.failed(err, 'the project could not be loaded or its lease taken');
      return false;
    }
  }

  /**
   * Waits after a failed cycle: until the backoff's retry is due, a trigger, or a new commit
   * (the branch's head moved off the one that failed), asked every poll.
   */
  private async waitOutFailure(): Promise<CycleReason> {
    while (!this.stopping && this.streak) {
      const streak = this.streak;
      this.nextCheckAt = streak.retryAt;
      const trigger = this.trigger;
      if (trigger) {
        this.trigger = undefined;
        return trigger;
      }
      if (this.now() >= streak.retryAt) return 'retry';
      this.refreshAsked = false;
      if (await this.commitChanged(streak)) return 'commit';
      await this.pause(Math.min(this.settings.pollMs, streak.retryAt - this.now()));
    }
    return 'retry';
  }

  /** The branch's head as the source reads it without fetching (the revision's id for a source that cannot say). */
  private async headNow(): Promise<string> {
    const { source } = this.settings;
    if (!source.head) return this.revision?.id ?? '';
    // One text for every read that fails: an error's own text (a timing, an address) would read as a new head each poll.
    return source.head().catch(() => UNREADABLE_HEAD);
  }

  /** Whether a commit other than the one that failed is there to try. */
  private async commitChanged(streak: FailureStreak): Promise<boolean> {
    const { source } = this.settings;
    if (source.head) {
      const head = await this.headNow();
      return head !== UNREADABLE_HEAD && head !== streak.commit;
    }
    // Without a head to read, a source that cannot fetch cannot say whether what it has is new either.
    return streak.stage !== 'fetch' && (await source.hasNew(streak.commit).catch(() => false));
  }

  /** Records a failure (logged every time, announced once per cause and commit) and sets when the next cycle is due; the error's redacted text. */
  private async failed(err: unknown, what: string): Promise<ReturnType<typeof message>> {
    const m = this.redactor().redactDeep(message(err));
    const now = this.now();
    const { streak, announce } = nextStreak(
      this.streak,
      { stage: this.stage, cause: causeOf(this.stage, err), error: m.error, commit: await this.headNow(), now },
      { baseMs: this.settings.pollMs, maxMs: this.settings.backoffMaxMs ?? DEFAULT_BACKOFF_MAX_MS },
    );
    this.streak = streak;
    this.nextCheckAt = streak.retryAt;
    this.settings.logger.log('error', what, {
      cycle: this.cycleNumber,
      stage: this.stage,
      ...m,
      failures: streak.failures,
      retry_in_ms: streak.retryAt - now,
      ...(announce ? {} : { announced: 'before, for this cause and commit' }),
    });
    if (announce) this.emit({ type: 'cycle-failed', ...m, ...(this.revision?.commit ? { commit: this.revision.commit } : {}) });
    return m;
  }

  /** Ends a failure streak: the next failure is announced and waits the poll interval again. */
  private recovered(): void {
    if (!this.streak) return;
    this.settings.logger.log('info', 'cycles succeed again', { failures: this.streak.failures, stage: this.streak.stage });
    this.streak = undefined;
  }

  private async pause(ms: number): Promise<void> {
    if (this.stopping || this.trigger) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, Math.max(0, ms));
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
    this.wake = undefined;
  }

  /** Waits for the next reason to cycle: a trigger, a new commit, a window's edge or the interval. */
  private async waitForNext(): Promise<CycleReason> {
    while (!this.stopping) {
      const trigger = this.trigger;
      if (trigger) {
        this.trigger = undefined;
        return trigger;
      }
      const now = this.now();
      if (this.windowChangeAt !== undefined && now >= this.windowChangeAt) {
        this.windowChangeAt = undefined;
        return 'window';
      }
      if (this.nextCheckAt !== undefined && now >= this.nextCheckAt) return 'interval';
      this.refreshAsked = false;
      if (this.revision && (await this.settings.source.hasNew(this.revision.id).catch(() => false))) return 'commit';
      const edges = [this.nextCheckAt, this.windowChangeAt, this.override?.untilMs].filter((t): t is number => t !== undefined);
      await this.pause(Math.min(this.settings.pollMs, ...edges.map((t) => t - this.now())));
    }
    return 'interval';
  }

  /**
   * Fetches the code and loads it when it changed; undefined while the newest commit is broken.
   * A loaded project is kept without fetching while the source says nothing is new (for git the
   * branch's ref, where a fetch also checks out): a standby asks at every poll.
   */
  private async loadIfNew(): Promise<ReconcileProject | undefined> {
    this.stage = 'fetch';
    const loaded = this.project;
    if (loaded && this.revision && !(await this.settings.source.hasNew(this.revision.id).catch(() => true))) return loaded;
    const rev = await this.settings.source.fetch();
    if (this.project && this.revision?.id === rev.id) return this.project;
    this.stage = 'synth';
    if (this.broken?.id === rev.id) return undefined;
    this.settings.logger.log('info', 'revision fetched', { revision: rev.commit ?? rev.id });
    await this.prepareDependencies(rev);
    try {
      this.project = await this.settings.loader.load(rev.dir);
      this.revision = rev;
      this.broken = undefined;
      this.settings.logger.log('info', 'project loaded', {
        revision: rev.commit ?? rev.id,
        stacks: this.project.stacks.map((s) => s.name),
      });
      return this.project;
    } catch (err) {
      // A broken commit leaves the fleet as it is: no cycle plans or applies until a good one comes.
      this.broken = { id: rev.id, error: err };
      this.revision = rev;
      this.project = undefined;
      throw err;
    }
  }

  /** Installs the revision's dependencies; a failure fails the cycle and is retried (an install may fail for a while, a registry out of reach). */
  private async prepareDependencies(rev: Revision): Promise<void> {
    const { dependencies, logger } = this.settings;
    if (!dependencies) return;
    this.stage = 'install';
    const outcome = await dependencies.prepare(rev.dir, rev.root ?? rev.dir);
    logger.log(outcome.level, outcome.message, { revision: rev.commit ?? rev.id, ...outcome.fields });
    this.stage = 'synth';
  }

  private async cycle(reason: CycleReason): Promise<void> {
    this.cycleNumber += 1;
    const started = this.now();
    const commit = this.revision?.commit;
    this.emit({ type: 'cycle-started', reason, ...(commit ? { commit } : {}) });
    try {
      const project = await this.loadIfNew();
      if (!project)
        throw (
          this.broken?.error ??
          new FleetformError(`revision ${this.revision?.commit ?? this.revision?.id ?? '?'} could not be loaded; waiting for a new one`, {
            hint: 'push a fix; the fleet is left as it is',
          })
        );
      this.stage = 'plan';
      const checked = reason === 'interval' ? await this.check(project) : 'plan';
      if (checked === 'interrupted') return;
      const { changes, drifted } =
        checked === 'same'
          ? this.lastCounts
          : checked === 'plan'
            ? await this.reconcile(project)
            : await this.reconcileChanged(project, checked.changed);
      const seconds = (this.now() - started) / 1000;
      this.lastCycle = { at: new Date(started).toISOString(), ok: true, seconds };
      this.emit({ type: 'cycle-finished', seconds, changes, drifted, ...(this.revision?.commit ? { commit: this.revision.commit } : {}) });
      this.settings.logger.log('info', 'cycle finished', {
        cycle: this.cycleNumber,
        reason,
        seconds: Number(seconds.toFixed(3)),
        changes,
        drifted,
      });
      this.recovered();
    } catch (err) {
      const seconds = (this.now() - started) / 1000;
      const m = await this.failed(err, 'cycle failed');
      this.lastCycle = { at: new Date(started).toISOString(), ok: false, seconds, error: m.error };
    }
  }

  /**
   * A drift check standing for a full plan when it may: `same` when nothing changed on the
   * service since the last full plan of this commit, the objects that changed (to plan
   * alone), or `plan` when a full plan must say.
   */
  private async check(project: ReconcileProject): Promise<'same' | 'plan' | 'interrupted' | { readonly changed: readonly string[] }> {
    const baseline = this.baseline;
    const fullEvery = this.settings.fullPlanEveryMs ?? DEFAULT_FULL_PLAN_EVERY_MS;
    if (!baseline || !project.readers || baseline.revision !== this.revision?.id || this.now() - baseline.at >= fullEvery) return 'plan';
    if (await this.pausedJournalMoved(project)) return 'plan';
    const result = await checkDrift({
      baseline,
      readers: project.readers,
      engine: project.engine,
      stacks: project.stacks,
      spreadMs: this.settings.intervalMs * (this.settings.spreadShare ?? 0.5),
      parallelism: CHECK_PARALLELISM,
      wait: (ms) => this.pause(ms),
      interrupted: () => this.somethingNew(),
      now: () => this.now(),
    });
    if (result.outcome === 'changed')
      this.settings.logger.log('info', 'objects changed on the service since the last plan', {
        objects: result.addresses.slice(0, 10),
        count: result.addresses.length,
      });
    if (result.outcome === 'changed') return result.addresses.length > 0 ? { changed: result.addresses } : 'plan';
    return result.outcome;
  }

  /** Whether a trigger, a stop or a new commit (asked at most every poll) should cut a drift check short. */
  private async somethingNew(): Promise<boolean> {
    if (this.stopping || this.trigger) return true;
    if ((!this.refreshAsked && this.now() - this.lastPolledAt < this.settings.pollMs) || !this.revision) return false;
    this.lastPolledAt = this.now();
    this.refreshAsked = false;
    if (!(await this.settings.source.hasNew(this.revision.id).catch(() => false))) return false;
    this.trigger = 'commit';
    return true;
  }

  /** Plans every stack under its lock and treats each by its policy. */
  private async reconcile(project: ReconcileProject): Promise<{ changes: number; drifted: number }> {
    const { engine, stacks } = project;
    const release = await engine.lock(
      stacks.map((s) => s.name),
      'reconcile',
    );
    // The last plan and the baseline hold a whole fleet's views and the states they came
    // from: released before the next full plan reads its own, never both held at once.
    this.baseline = undefined;
    this.lastPlan = undefined;
    try {
      const { plan, states } = await engine.plan(stacks, { refresh: true, destroy: false });
      this.windowChangeAt = undefined;
      this.pausedJournals.clear();
      this.locations = new LocationWindows(stacks, states, plan.changes);
      this.lastPlan = withWindowHolds(plan, {
        stacks,
        states,
        windowsOf: (s) => stackPolicy(s, this.settings).windows,
        clock: this.windowClock(),
        locations: this.locations,
      });
      let changes = 0;
      let drifted = 0;
      let wrote = false;
      for (const stack of stacks) {
        const r = await this.reconcileStack(project, stack, plan, states);
        changes += r.changes;
        drifted += r.drifted;
        wrote ||= r.applied;
      }
      this.lastCounts = { changes, drifted };
      // After an apply (or a rollout resumed or paused) the next cycle plans in full.
      if (!wrote && this.revision) this.baseline = baselineOf(this.revision.id, plan, states, this.now());
      return { changes, drifted };
    } finally {
      await release();
    }
  }

  /**
   * Plans only the objects a drift check found changed (under the stacks' locks), reports
   * them at once and treats each stack by its policy, as a full plan would; the rest of the
   * fleet stands as the last full plan found it (the check proved it unchanged). A state
   * written since, or an object the targeted plan cannot settle, makes it a full plan.
   */
  private async reconcileChanged(project: ReconcileProject, addresses: readonly string[]): Promise<{ changes: number; drifted: number }> {
    const { baseline, lastPlan } = this;
    if (!baseline || !lastPlan) return this.reconcile(project);
    const { engine, stacks } = project;
    const release = await engine.lock(
      stacks.map((s) => s.name),
      'reconcile',
    );
    let counts: { changes: number; drifted: number } | undefined;
    try {
      const started = this.now();
      const targeted = await this.targetedPlan(engine, stacks, addresses);
      const why = targeted ? unsettled(targeted.plan, baseline, addresses) : 'an address is no longer in the code or the state';
      if (targeted && why === undefined) {
        const { plan, states } = targeted;
        this.settings.logger.log('info', 'targeted plan of the changed objects', {
          count: addresses.length,
          seconds: Number(((this.now() - started) / 1000).toFixed(3)),
        });
        const report = mergedPlan(lastPlan, plan);
        this.lastPlan = report;
        const planned = new Set(plan.stacks.map((h) => h.name));
        let changes = 0;
        let drifted = 0;
        let wrote = false;
        for (const stack of stacks) {
          const earlier = this.stacks.get(stack.name)?.status;
          if (!planned.has(stack.name)) {
            changes += earlier?.changes ?? 0;
            drifted += earlier?.drifted.length ?? 0;
            continue;
          }
          const r = await this.reconcileStack(project, stack, plan, states, report);
          changes += r.changes;
          drifted += r.drifted;
          wrote ||= r.applied;
        }
        counts = { changes, drifted };
        this.lastCounts = counts;
        // After a write the next cycle plans in full; else the checks compare with what this plan observed.
        this.baseline = wrote ? undefined : rebased(baseline, plan);
      } else this.settings.logger.log('info', 'a full plan instead of a targeted one', { reason: why });
    } finally {
      await release();
    }
    return counts ?? this.reconcile(project);
  }

  /** A plan of `addresses` only; undefined when one is no longer declared nor in state. */
  private async targetedPlan(
    engine: ReconcileProject['engine'],
    stacks: readonly DesiredStack[],
    addresses: readonly string[],
  ): Promise<{ plan: Plan; states: Map<string, State> } | undefined> {
    try {
      return await engine.plan(stacks, { refresh: true, destroy: false, targets: addresses });
    } catch (err) {
      if (err instanceof FleetformError && err.path === '--target') return undefined;
      throw err;
    }
  }

  private memory(stack: DesiredStack, policy: StackPolicy): StackMemory {
    let m = this.stacks.get(stack.name);
    if (!m) {
      m = { status: { stack: stack.name, apply: policy.apply, drift: policy.drift, changes: 0, drifted: [] }, reportedDrift: '' };
      this.stacks.set(stack.name, m);
    }
    return m;
  }

  /** Whether `windows` (a stack's or a location's) let an apply start now, a manual override first. */
  private windowsVerdict(windows: StackPolicy['windows']): WindowVerdict {
    const o = this.activeOverride();
    if (o) return o.mode === 'open' ? { open: true } : { open: false, reason: 'windows closed by a manual override' };
    const v = windowVerdict(windows, this.now());
    if (v.changesAt !== undefined) this.windowChangeAt = Math.min(this.windowChangeAt ?? Infinity, v.changesAt);
    return v;
  }

  /** The windows as this reconciler reads them now (the override first), for what its plan says they hold. */
  private windowClock(): WindowClock {
    return {
      now: this.now(),
      verdict: (w) => this.windowsVerdict(w),
      opensAt: (w) => {
        const o = this.activeOverride();
        return o ? (o.mode === 'open' ? this.now() : o.untilMs) : opensAt(w, this.now());
      },
    };
  }

  private activeOverride(): { mode: 'open' | 'closed'; untilMs: number | undefined } | undefined {
    const o = this.override;
    if (o?.untilMs !== undefined && this.now() >= o.untilMs) this.override = undefined;
    return this.override;
  }

  private async reconcileStack(
    project: ReconcileProject,
    stack: DesiredStack,
    plan: Plan,
    states: Map<string, State>,
    report: Plan = plan,
  ): Promise<{ changes: number; drifted: number; applied: boolean }> {
    const policy = stackPolicy(stack, this.settings);
    const m = this.memory(stack, policy);
    // `plan` is what may be applied; `report` (the same, or the last full plan with a targeted one's changes in) what is reported.
    const all = plan.changes.filter((c) => c.stack === stack.name);
    const reported = report.changes.filter((c) => c.stack === stack.name && c.action !== 'no-op');
    const drifted = reported.filter(isDrift).map((c) => c.address);
    const counts = { changes: reported.length, drifted: drifted.length };
    m.status = this.stackStatus(m, policy, reported.length, drifted);
    if (m.stopped && m.stopped.revision !== this.revision?.id) m.stopped = undefined;
    const [journal, ...fragmentJournals] = await this.journalsOf(project, stack);
    const decision = decideStack({
      stack: stack.name,
      policy,
      changes: all.filter((c) => c.action !== 'no-op'),
      drifted,
      problems: all.flatMap((c) => c.problems.map((p) => `${c.address}: ${p.message}`)),
      journal,
      fragmentJournals: fragmentJournals.filter((j): j is RolloutJournal => j !== undefined),
      now: this.now(),
      rollouts: plan.rollouts ?? [],
      maxDestroy: this.settings.maxDestroy,
      memory: { ...(m.stopped ? { stoppedText: m.stopped.text } : {}), ...(m.approved ? { approved: m.approved } : {}) },
      verdict: (w) => this.windowsVerdict(w),
      locations: this.locations,
    });
    if (decision.kind === 'refuse')
      throw new FleetformError(
        `stack ${stack.name}: the plan has ${decision.problems.length} problem(s); nothing is applied: ${decision.problems.slice(0, 3).join('; ')}`,
        { path: stack.name, hint: 'fix the code; the fleet is left as it is' },
      );
    this.reportDrift(stack.name, policy, drifted, m);
    if (decision.kind === 'quiet') return { ...counts, applied: false };
    // A rollout's scheduled start wakes the reconciler, as a window's edge does; a paused one is watched for its release.
    if (decision.kind === 'wait' && decision.wakeAt !== undefined)
      this.windowChangeAt = Math.min(this.windowChangeAt ?? Infinity, decision.wakeAt);
    if (decision.kind === 'wait' && decision.for === 'release')
      this.pausedJournals.set(stack.name, journalMark([journal, ...fragmentJournals]));
    else this.pausedJournals.delete(stack.name);
    if (decision.kind === 'wait' && !decision.locations) {
      this.sayWait(stack.name, decision, m);
      return { ...counts, applied: false };
    }
    // The stack's own gates let its changes through: what is left to wait on is its machines' locations.
    m.windowSaid = undefined;
    if (decision.kind === 'wait') {
      this.sayHeld(stack.name, decision.fingerprint, decision.locations ?? { held: [] }, m);
      m.status = { ...m.status, waiting: { for: decision.for, reason: decision.reason, since: new Date(this.now()).toISOString() } };
      return { ...counts, applied: false };
    }
    this.sayHeld(stack.name, decision.fingerprint, { held: decision.held }, m);
    await this.applyStack(project, stack, plan, states, decision.writable, {
      policy,
      healOnly: decision.healOnly,
      drifted: decision.healing,
    });
    m.asked = undefined;
    m.approved = undefined;
    return { ...counts, applied: true };
  }

  /** The journals of the stack's rollouts: its own, then each fragment rollout's (undefined where there is none). */
  private journalsOf(project: ReconcileProject, stack: DesiredStack): Promise<Array<RolloutJournal | undefined>> {
    return Promise.all(rolloutJournalKeys(stack).map((key) => project.engine.journals.read(key)));
  }

  /** Whether the journals of a stack a paused rollout held changed since (released, or aborted). */
  private async pausedJournalMoved(project: ReconcileProject): Promise<boolean> {
    for (const [name, seen] of this.pausedJournals) {
      const stack = project.stacks.find((s) => s.name === name);
      if (!stack || journalMark(await this.journalsOf(project, stack)) !== seen) return true;
    }
    return false;
  }

  /** The stack's status as this cycle's plan leaves it, before what it waits on is known. */
  private stackStatus(m: StackMemory, policy: StackPolicy, changes: number, drifted: readonly string[]): StackStatus {
    const { waiting: _w, held: _h, ...rest } = m.status;
    return { ...rest, apply: policy.apply, drift: policy.drift, changes, drifted };
  }

  /** A drift found is reported once while it lasts, unless the stack's drift policy is off. */
  private reportDrift(stack: string, policy: StackPolicy, drifted: readonly string[], m: StackMemory): void {
    const driftKey = drifted.join('\n');
    if (drifted.length > 0 && policy.drift !== 'off' && driftKey !== m.reportedDrift)
      this.emit({ type: 'drift-found', stack, objects: [...drifted], policy: policy.drift });
    m.reportedDrift = policy.drift === 'off' ? '' : driftKey;
  }

  /** What the stack's own gates make it wait on goes in its status, and is said once while it lasts. */
  private sayWait(stack: string, wait: StackWait, m: StackMemory): void {
    m.status = { ...m.status, waiting: { for: wait.for, reason: wait.reason, since: new Date(this.now()).toISOString() } };
    if (wait.for === 'retry') {
      if (m.stopped && !m.stopped.said) {
        m.stopped.said = true;
        this.emit({ type: 'apply-waiting', stack, reason: wait.reason });
      }
    } else if (wait.for === 'approval') {
      if (m.asked === wait.fingerprint) return;
      m.asked = wait.fingerprint;
      const { add, change, destroy } = wait.summary;
      this.emit({ type: 'approval-needed', stack, reason: wait.reason, add, change, destroy });
    } else if (m.windowSaid !== `${wait.fingerprint}/${wait.reason}`) {
      m.windowSaid = `${wait.fingerprint}/${wait.reason}`;
      this.emit({ type: 'apply-waiting', stack, reason: wait.reason });
    }
  }

  /** Machines their locations' windows hold are said in the stack's status, the log and one event per hold, once while it lasts. */
  private sayHeld(stack: string, fingerprint: string, wait: LocationWait, m: StackMemory): void {
    if (wait.held.length > 0) m.status = { ...m.status, held: wait.held };
    const next = wait.nextWaveHeld ? `its rollout's next wave waits: ${wait.nextWaveHeld}` : '';
    const reason = [heldText(wait.held), next].filter((t) => t !== '').join('; ');
    if (!reason) {
      m.heldSaid = undefined;
      return;
    }
    const key = `${fingerprint}/${reason}`;
    if (m.heldSaid === key) return;
    m.heldSaid = key;
    this.settings.logger.log('info', "machines held by their locations' windows", { stack, reason });
    for (const h of wait.held)
      this.emit({ type: 'apply-waiting', stack, reason: heldText([h]), location: h.location, machines: [...h.machines] });
    if (next) this.emit({ type: 'apply-waiting', stack, reason: next });
  }

  private async applyStack(
    project: ReconcileProject,
    stack: DesiredStack,
    plan: Plan,
    states: Map<string, State>,
    toApply: readonly ResourceChange[],
    how: { policy: StackPolicy; healOnly: boolean; drifted: readonly string[] },
  ): Promise<void> {
    const m = this.stacks.get(stack.name);
    const chosen = new Set(toApply.map((c) => c.address));
    const subPlan: Plan = {
      ...plan,
      changes: plan.changes.filter((c) => c.stack === stack.name && (c.action === 'no-op' || chosen.has(c.address))),
    };
    const started = this.now();
    this.emit({ type: 'apply-started', stack: stack.name, changes: toApply.length, heal: how.healOnly });
    this.settings.logger.log('info', 'apply started', { stack: stack.name, changes: toApply.length, heal: how.healOnly });
    const onRollout = (e: RolloutEvent): void => this.rolloutEvent(stack.name, e);
    const outcome = await project.engine.apply(subPlan, [stack], states, noReporter, onRollout, {
      // A rollout whose schedule starts later is left waiting: the cycle at its start goes on.
      waitForSchedule: false,
      waveBoundary: (next) => {
        if (this.stopping) return 'the reconciler is stopping';
        // The stack's windows were open when this apply started: they hold its rollout from the next wave on.
        const v = next.first ? { open: true } : this.windowsVerdict(how.policy.windows);
        if (!v.open) return v.reason ?? 'its window closed';
        return this.locations ? waveHold(this.locations, next.stack, next.machines, (w) => this.windowsVerdict(w)) : undefined;
      },
    });
    const failed = outcome.failed.map((f) => f.address);
    const seconds = (this.now() - started) / 1000;
    this.emit({ type: 'apply-finished', stack: stack.name, applied: outcome.applied, failed, seconds });
    this.settings.logger.log(failed.length > 0 ? 'warn' : 'info', 'apply finished', {
      stack: stack.name,
      applied: outcome.applied,
      failed: failed.length,
      seconds: Number(seconds.toFixed(3)),
    });
    const notDone = new Set([...failed, ...outcome.skipped]);
    const healed = how.drifted.filter((a) => !notDone.has(a));
    if (healed.length > 0) this.emit({ type: 'drift-healed', stack: stack.name, objects: healed });
    if (m) {
      m.status = { ...m.status, lastApply: { at: new Date(started).toISOString(), applied: outcome.applied, failed: failed.length } };
      if (healed.length > 0) m.reportedDrift = '';
    }
  }

  private rolloutEvent(stack: string, e: RolloutEvent): void {
    this.settings.logger.log('info', 'rollout', { stack, event: e.type, rollout: e.rollout, ...('wave' in e ? { wave: e.wave } : {}) });
    if (e.type === 'wave-ended')
      this.emit({ type: 'wave-passed', stack, rollout: e.rollout, wave: e.wave, seconds: e.seconds, outcome: waveEndText(e) });
    else if (e.type === 'paused') this.emit({ type: 'rollout-paused', stack, rollout: e.rollout, wave: e.wave, reason: e.reason });
    else if (e.type === 'measurement') {
      const { result, value, baseline, why } = e.measurement;
      this.emit({
        type: 'rollout-measurement',
        stack,
        rollout: e.rollout,
        wave: e.wave,
        analysis: e.analysis,
        result,
        ...(value === undefined ? {} : { value }),
        ...(baseline === undefined ? {} : { baseline }),
        why,
      });
    } else if (e.type === 'done' && e.outcome.outcome === 'stopped') {
      // Retrying it each cycle would fail the same gate again: it waits for a new commit or a retry.
      const m = this.stacks.get(stack);
      if (m && this.revision)
        m.stopped = {
          revision: this.revision.id,
          text: `rollout ${e.rollout} stopped at wave ${e.outcome.stoppedAt ?? 0} on this commit (${e.outcome.reason ?? 'its gate failed'})`,
          said: false,
        };
      this.emit({
        type: 'rollout-stopped',
        stack,
        rollout: e.rollout,
        wave: e.outcome.stoppedAt ?? 0,
        reason: e.outcome.reason ?? '',
        rolledBack: e.outcome.onFailure === 'rollback',
      });
    }
  }
}

/** How a stack's journals read: their status and last update each. */
function journalMark(journals: ReadonlyArray<RolloutJournal | undefined>): string {
  return journals.map((j) => (j ? `${j.status}@${j.updated_at}` : '-')).join(',');
}

/** A failure streak as the status shows it. */
function failingView(streak: FailureStreak): NonNullable<ReconcilerStatus['failing']> {
  return {
    stage: streak.stage,
    cause: streak.cause,
    error: streak.error,
    commit: streak.commit,
    failures: streak.failures,
    since: new Date(streak.since).toISOString(),
    retryAt: new Date(streak.retryAt).toISOString(),
  };
}

/** Why a targeted plan cannot stand for a full one: the state was written since the last full plan, or an address was not planned. */
function unsettled(plan: Plan, baseline: CheckBaseline, addresses: readonly string[]): string | undefined {
  for (const h of plan.stacks) {
    const before = baseline.states.get(h.name);
    if (!before || before.lineage !== h.lineage || before.serial !== h.serial)
      return `the state of stack ${h.name} was written since the last full plan`;
  }
  const planned = new Set(plan.changes.flatMap((c) => [c.address, ...(c.movedFrom ? [c.movedFrom] : [])]));
  const missing = addresses.find((a) => !planned.has(a));
  if (missing) return `${missing} was not planned`;
  const adopted = plan.changes.find((c) => c.adopted);
  return adopted ? `${adopted.address} was created by an interrupted apply` : undefined;
}

/** The last full plan with a targeted plan's changes in place of its own at those addresses: what is reported now. */
function mergedPlan(last: Plan, targeted: Plan): Plan {
  const key = (stack: string, address: string): string => `${stack}\u0000${address}`;
  const replaced = new Set(targeted.changes.flatMap((c) => [key(c.stack, c.address), ...(c.movedFrom ? [key(c.stack, c.movedFrom)] : [])]));
  const headers = new Map(targeted.stacks.map((h) => [h.name, h]));
  return {
    ...last,
    stacks: last.stacks.map((h) => headers.get(h.name) ?? h),
    changes: [...last.changes.filter((c) => !replaced.has(key(c.stack, c.address))), ...targeted.changes],
  };
}

/** The baseline with the versions a targeted plan observed in place of the old ones at its addresses. */
function rebased(baseline: CheckBaseline, targeted: Plan): CheckBaseline {
  const seen = new Map(targeted.changes.map((c) => [`${c.stack}\u0000${c.movedFrom ?? c.address}`, c.observedVersion]));
  return {
    ...baseline,
    objects: baseline.objects.map((o) => {
      const version = seen.get(`${o.stack}\u0000${o.address}`);
      return version === undefined ? o : { ...o, version };
    }),
  };
}
