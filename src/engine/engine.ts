import type { ServiceClient } from '../api/client';
import { FleetformError } from '../domain/errors';
import { executeSchedule, type ApplyOutcome, type ApplyReporter, type GatingEnv } from './apply/executor';
import { stackSchedules, rolloutJournalKeys, waitingAddresses, type RunningJournals } from './apply/schedule';
import type { DesiredStack, ProviderSettings } from './desired/stack';
import { IMPORT_ID_HINT, type KindContext, type KindRegistry } from './kind';
import { maskPaths, viewSecretPaths } from './mask';
import type { Plan, ResolvedMachineChange, ResourceChange, StackPlanHeader } from './plan-model';
import { planStack } from './plan/planner';
import { planFragmentRollouts, planRollouts } from './rollout/plan';
import { heldStack, promotionRecords, withHoldNotes } from './rollout/promotion';
import type { RolloutEvents, RolloutOutcome, WaveBoundary } from './rollout/events';
import type { MachineStatusSource } from './health/machine-status-source';
import { memoryJournalStore, type RolloutJournal, type RolloutJournalStore } from './state/rollout-journal';
import type { RolloutPlan } from '../domain/rollout';
import { serviceStatusSource } from './health/service-status-source';
import type { StateBackend, StateLock } from './state/backend';
import { StateLockedError } from './state/holder-process';
import { startLoopStallClock } from './loop-stall';
import { AdaptiveReadLimit, type ReadLimitStats } from './read-concurrency';
import { evaluateOutputs } from './outputs';
import { mapLimited } from './map-limited';
import { isUnfinished } from './state/rollout-journal-pacing';
import { kindContext, resolveTarget, type RunSettings, type Target } from './target';
import type { LockInfo, State, StateEntry, StateOutput } from './state/schema';

/** The resource type of a location: the stack's new ones change where a machine naming none may go. */
const LOCATION_TYPE = 'fleetform_location';

/** The fix for a saved plan the state or the service moved past. */
const PLAN_AGAIN = 'run `fleetform plan --out FILE` again and review it';

export interface EngineSettings {
  readonly client: ServiceClient;
  readonly backend: StateBackend;
  readonly kinds: KindRegistry;
  readonly parallelism: number;
  /**
   * The most reads a plan keeps in flight. Above `parallelism`, reads start at
   * {@link READ_LIMIT_START} (or this bound, if lower) and follow the network up to this
   * bound, falling back on latency alone no lower than `parallelism`; default
   * `parallelism` (fixed).
   */
  readonly readParallelism?: number;
  /** Where the read limit starts (capped by `readParallelism`); default {@link READ_LIMIT_START}. */
  readonly readStart?: number;
  readonly lockTimeoutMs: number;
  /** Asked when a lock's holder is a dead process of this machine: true takes it over. */
  readonly breakStaleLock?: (holder: LockInfo) => Promise<boolean>;
  /** Told when a stack's lock is held by another run and this one starts waiting for it. */
  readonly onLockWait?: (stack: string) => void;
  /** Where rollouts journal their progress; default: in memory (no resume after a kill). */
  readonly rolloutJournal?: RolloutJournalStore;
  /** Where rollouts read machine health; default: through the service. */
  readonly statusSource?: MachineStatusSource;
  /** Used when a stack's provider names no organization or location (e.g. the embedded emulator's). */
  readonly defaults?: { readonly organizationId?: string; readonly locationId?: string };
  /** How long apply waits for the training jobs whose models machines deploy, and where it says so (see KindContext). */
  readonly run?: RunSettings;
}

/** Seconds of the last plan spent reading states, and the rest (service reads, diffs). */
export interface PlanStats {
  readonly stateS: number;
  readonly planS: number;
  readonly reads: ReadLimitStats | undefined;
}

export class StalePlanError extends FleetformError {}

/**
 * Where the read limit starts: every read of a fleet of up to 100 machines (one read
 * each, plus the shared ones) goes out in the first round trip, so a small fleet never
 * pays the ramp; a larger one doubles from there while reads answer as fast as the fastest.
 */
export const READ_LIMIT_START = 128;

/**
 * The read limit of one plan: from `readStart` (default {@link READ_LIMIT_START}, at most
 * `readParallelism`) up to `readParallelism`, down to `parallelism` on latency alone; none
 * (reads at `parallelism`, fixed) when `readParallelism` is not above `parallelism`.
 */
export function planReadLimit(
  bounds: { readonly parallelism: number; readonly readParallelism?: number; readonly readStart?: number },
  ownDelayMs?: () => number,
): AdaptiveReadLimit | undefined {
  const { parallelism, readParallelism = parallelism, readStart = READ_LIMIT_START } = bounds;
  if (readParallelism <= parallelism) return undefined;
  return new AdaptiveReadLimit({ initial: readStart, floor: parallelism, max: readParallelism, ...(ownDelayMs ? { ownDelayMs } : {}) });
}

/** Plans and applies stacks against one service. Knows no resource kind. */
export class Engine {
  private readonly targets = new Map<string, Promise<Target>>();
  private lastPlan: PlanStats = { stateS: 0, planS: 0, reads: undefined };
  constructor(private readonly settings: EngineSettings) {}

  /** How the last plan's reads went (limit reached, reads in flight at most), if it read. */
  readStats(): ReadLimitStats | undefined {
    return this.lastPlan.reads;
  }

  /** Where the last plan's time went: reading states, and reading the service and diffing. */
  planStats(): PlanStats {
    return this.lastPlan;
  }

  /** Locks every named stack, or none (releasing what it took) when one is locked. */
  async lock(stacks: readonly string[], operation: string): Promise<() => Promise<void>> {
    const held: StateLock[] = [];
    const release = async () => {
      for (const l of held.reverse()) await l.release();
    };
    try {
      for (const s of stacks) held.push(await this.lockOne(s, operation));
    } catch (err) {
      await release();
      throw err;
    }
    return release;
  }

  /** Takes one stack's lock, saying so when it has to wait for another run's. */
  private async lockOne(stack: string, operation: string): Promise<StateLock> {
    const { backend, lockTimeoutMs, onLockWait, breakStaleLock } = this.settings;
    const stale = breakStaleLock ? { breakStale: breakStaleLock } : {};
    if (lockTimeoutMs <= 0 || !onLockWait) return backend.lock(stack, operation, { timeoutMs: lockTimeoutMs, ...stale });
    try {
      return await backend.lock(stack, operation, { timeoutMs: 0, ...stale });
    } catch (err) {
      if (!(err instanceof StateLockedError) || err.stale) throw err;
      onLockWait(stack);
      return backend.lock(stack, operation, { timeoutMs: lockTimeoutMs, ...stale });
    }
  }

  /** The organization and location a stack's resources live in. */
  target(provider: ProviderSettings): Promise<Target> {
    const key = `${provider.organizationId ?? ''}/${provider.locationId ?? ''}`;
    let found = this.targets.get(key);
    if (!found) {
      found = this.resolveTarget(provider);
      this.targets.set(key, found);
    }
    return found;
  }

  private resolveTarget(provider: ProviderSettings): Promise<Target> {
    return resolveTarget(this.settings.client, provider, this.settings.defaults);
  }

  async context(provider: ProviderSettings): Promise<KindContext> {
    return kindContext(this.settings.client, await this.target(provider), this.settings.run);
  }

  /** A stack's context for a plan or an apply: with the locations it creates in this run (a machine naming none cannot default to the only one then). */
  private async stackContext(stack: DesiredStack, state: State): Promise<KindContext> {
    const ctx = await this.context(stack.provider);
    const creatingLocations = stack.resources.filter((r) => r.type === LOCATION_TYPE && !state.resources[r.address]).length;
    return creatingLocations > 0 ? { ...ctx, creatingLocations } : ctx;
  }

  /** Reads states and the service, and plans every stack. Call under `lock`. */
  async plan(
    stacks: readonly DesiredStack[],
    options: { refresh: boolean; destroy: boolean; targets?: readonly string[] },
  ): Promise<{ plan: Plan; states: Map<string, State> }> {
    const targets = options.targets && options.targets.length > 0 ? new Set(options.targets) : undefined;
    const found = new Set<string>();
    const states = new Map<string, State>();
    const headers: StackPlanHeader[] = [];
    const changes: ResourceChange[] = [];
    const resolvedMachines: ResolvedMachineChange[] = [];
    const { parallelism, readParallelism = parallelism, readStart } = this.settings;
    const stalls = readParallelism > parallelism ? startLoopStallClock() : undefined;
    const readLimit = stalls ? planReadLimit({ parallelism, readParallelism, readStart }, stalls.stalledMs) : undefined;
    let stateS = 0;
    const started = performance.now();
    const plannedAs: DesiredStack[] = [];
    try {
      for (const declared of stacks) {
        const readStarted = performance.now();
        const state = await this.settings.backend.read(declared.name);
        // Machines are planned with the model versions the stack's promotions give them.
        const { stack, holds } = heldStack(declared, state);
        plannedAs.push(stack);
        stateS += (performance.now() - readStarted) / 1000;
        const stackTargets = targets ? targetsIn(stack, state, targets) : undefined;
        // A targeted plan reads and plans no stack that holds none of its addresses.
        if (stackTargets && stackTargets.size === 0) continue;
        for (const a of stackTargets ?? []) found.add(a);
        states.set(stack.name, state);
        const ctx = await this.stackContext(stack, state);
        headers.push({
          name: stack.name,
          lineage: state.lineage,
          serial: state.serial,
          organizationId: ctx.organizationId,
          locationId: ctx.locationId,
        });
        const planned = await planStack({
          stack,
          state,
          kinds: this.settings.kinds,
          ctx,
          refresh: options.refresh,
          parallelism,
          readLimit,
          destroy: options.destroy,
          ...(stackTargets ? { targets: stackTargets } : {}),
        });
        // What changes do beyond their own objects (a fragment's, to the machines importing it).
        const reach = options.destroy
          ? { changes: planned, resolved: [] }
          : await this.settings.kinds.reviewStack(ctx, stack.name, state, planned);
        changes.push(...withHoldNotes(reach.changes, stack.name, holds));
        resolvedMachines.push(...reach.resolved);
      }
    } finally {
      stalls?.stop();
    }
    if (targets) refuseUnknownTargets(targets, found);
    this.lastPlan = { stateS, planS: (performance.now() - started) / 1000 - stateS, reads: readLimit?.stats() };
    // A targeted plan's rollouts are those of the stacks it planned.
    const plannedStacks = targets ? plannedAs.filter((s) => states.has(s.name)) : plannedAs;
    const rollouts = options.destroy
      ? []
      : await this.withResumes(plannedStacks, [...planRollouts(plannedStacks, changes), ...planFragmentRollouts(plannedStacks, changes)]);
    const plan: Plan = {
      formatVersion: '1.0',
      createdAt: new Date().toISOString(),
      stacks: headers,
      changes,
      destroy: options.destroy,
      ...(targets ? { targets: [...targets] } : {}),
      ...(rollouts.length > 0 ? { rollouts } : {}),
      ...(resolvedMachines.length > 0 ? { resolvedMachines } : {}),
    };
    return { plan, states };
  }

  /**
   * A stack never written has no lineage of its own yet (each read makes a fresh one): a
   * plan made of it applies to it while it is still unwritten, and the state it starts
   * takes the plan's lineage.
   */
  private unwrittenAsPlanned(state: State, header: StackPlanHeader): State {
    const unwritten = state.serial === 0 && Object.keys(state.resources).length === 0;
    return unwritten && header.serial === 0 ? { ...state, lineage: header.lineage } : state;
  }

  /**
   * Checks that a saved plan still describes the world: same state (lineage and serial)
   * and the same remote versions it observed. Call under `lock`.
   */
  async assertFresh(plan: Plan, stacks: readonly DesiredStack[]): Promise<Map<string, State>> {
    const states = new Map<string, State>();
    for (const header of plan.stacks) {
      const stack = stacks.find((s) => s.name === header.name);
      if (!stack)
        throw new StalePlanError(`saved plan is stale: stack ${header.name} is no longer in the app`, {
          hint: 'run `fleetform plan --out FILE` again',
        });
      const state = this.unwrittenAsPlanned(await this.settings.backend.read(header.name), header);
      if (state.lineage !== header.lineage || state.serial !== header.serial) {
        throw new StalePlanError(
          `saved plan is stale: the state of stack ${header.name} changed since the plan (serial ${header.serial} -> ${state.serial})`,
          {
            hint: PLAN_AGAIN,
          },
        );
      }
      states.set(header.name, state);
      const ctx = await this.context(stack.provider);
      for (const change of plan.changes.filter((c) => c.stack === header.name && c.action !== 'no-op' && c.observedVersion !== null)) {
        const stored = state.resources[change.movedFrom ?? change.address];
        const entry = stored && change.adopted ? { ...stored, ids: { ...change.adopted.ids } } : stored;
        const kind = this.settings.kinds.get(change.type);
        if (!entry || !kind) continue;
        const now = await kind.observe(ctx, entry);
        if ((now?.version ?? null) !== change.observedVersion) {
          throw new StalePlanError(`saved plan is stale: ${change.address} changed on the service since the plan`, {
            hint: PLAN_AGAIN,
          });
        }
      }
    }
    return states;
  }

  /**
   * Applies a plan stack by stack, then evaluates each stack's outputs against its new
   * state and keeps them there. Call under `lock`.
   */
  async apply(
    plan: Plan,
    stacks: readonly DesiredStack[],
    states: Map<string, State>,
    reporter: ApplyReporter,
    rolloutEvents: RolloutEvents = () => undefined,
    options: {
      readonly waveBoundary?: WaveBoundary;
      /** Whether a rollout waits for its schedule's start (default), or is left waiting for a later apply. */
      readonly waitForSchedule?: boolean;
    } = {},
  ): Promise<ApplyOutcome & { outputs: Record<string, Record<string, StateOutput>>; rollouts: RolloutOutcome[] }> {
    const outcome = {
      applied: 0,
      failed: [] as Array<{ address: string; error: unknown }>,
      skipped: [] as string[],
      outputs: {} as Record<string, Record<string, StateOutput>>,
      rollouts: [] as RolloutOutcome[],
    };
    const gating: GatingEnv = {
      source: () => this.statusSource(),
      events: rolloutEvents,
      journals: this.journals,
      ...(options.waveBoundary ? { waveBoundary: options.waveBoundary } : {}),
      ...(options.waitForSchedule === false ? { waitForSchedule: false } : {}),
    };
    for (const declared of stacks) {
      const planned = states.get(declared.name) ?? (await this.settings.backend.read(declared.name));
      const stack = heldStack(declared, planned).stack;
      const rolloutsBefore = outcome.rollouts.length;
      const [failedBefore, skippedBefore] = [outcome.failed.length, outcome.skipped.length];
      const changes = plan.changes.filter((c) => c.stack === stack.name && c.action !== 'no-op');
      // An interrupted rollout goes on, with or without new changes; a destroy runs none.
      const schedules = plan.destroy
        ? stackSchedules(stack, changes, [], new Map())
        : stackSchedules(stack, changes, plan.rollouts ?? [], await this.runningJournals(stack));
      const ctx = schedules.length > 0 ? await this.stackContext(stack, planned) : undefined;
      for (const [i, schedule] of schedules.entries()) {
        if (!ctx) break;
        if (schedule.afterCleanRun && outcome.failed.length > 0) {
          outcome.skipped.push(...waitingAddresses(schedule));
          continue;
        }
        const state = i === 0 ? planned : await this.settings.backend.read(stack.name);
        const { kinds, backend, parallelism } = this.settings;
        const r = await executeSchedule(schedule, { stack, state, backend, kinds, ctx, parallelism, reporter, gating });
        if (r.rollout) outcome.rollouts.push(r.rollout);
        outcome.applied += r.applied;
        outcome.failed.push(...r.failed);
        outcome.skipped.push(...r.skipped);
      }
      const state = ctx ? await this.settings.backend.read(stack.name) : planned;
      const outputs = plan.destroy ? {} : evaluateOutputs(stack, state);
      // What this stack's apply decided of its promoted models' versions.
      const records = promotionRecords({
        stack,
        before: planned,
        changes,
        notWritten: new Set([...outcome.failed.slice(failedBefore).map((f) => f.address), ...outcome.skipped.slice(skippedBefore)]),
        rollouts: outcome.rollouts.slice(rolloutsBefore),
        at: new Date().toISOString(),
      });
      const outputsChanged = JSON.stringify(outputs) !== JSON.stringify(state.outputs ?? {});
      if (outputsChanged || records.size > 0) {
        state.outputs = outputs;
        if (records.size > 0) state.promotions = { ...state.promotions, ...Object.fromEntries(records) };
        state.serial += 1;
        await this.settings.backend.write(state);
      }
      if (Object.keys(outputs).length > 0) outcome.outputs[stack.name] = outputs;
    }
    return outcome;
  }

  /** The stack's rollout journals an interrupted apply left running, by key. */
  private async runningJournals(stack: DesiredStack): Promise<RunningJournals> {
    const running = new Map<string, RolloutJournal>();
    for (const key of rolloutJournalKeys(stack)) {
      const journal = await this.journals.read(key);
      if (journal && isUnfinished(journal.status)) running.set(key, journal);
    }
    return running;
  }

  private source: Promise<MachineStatusSource> | undefined;
  private memoryJournals: RolloutJournalStore | undefined;

  /** The planned rollouts, with each interrupted one (journaled as running) marked as resumed at its wave. */
  private async withResumes(stacks: readonly DesiredStack[], planned: RolloutPlan[]): Promise<RolloutPlan[]> {
    const out = [...planned];
    for (const stack of stacks) {
      for (const journal of (await this.runningJournals(stack)).values()) {
        const held = journal.status === 'paused' || journal.status === 'waiting' ? { held: journal.status } : {};
        const resumes = { wave: journal.wave, startedAt: journal.started_at, ...held };
        const fragment = journal.plan.fragment;
        const at = out.findIndex(
          (r) => r.stack === stack.name && (fragment ? r.fragment && r.policy.name === journal.plan.policy.name : !r.fragment),
        );
        if (at >= 0) out[at] = { ...journal.plan, resumes };
        else out.push({ ...journal.plan, resumes });
      }
    }
    return out;
  }

  /** Where rollouts journal their progress. */
  get journals(): RolloutJournalStore {
    if (this.settings.rolloutJournal) return this.settings.rolloutJournal;
    this.memoryJournals ??= memoryJournalStore();
    return this.memoryJournals;
  }

  /** Where machine health is read (one per engine). */
  statusSource(): Promise<MachineStatusSource> {
    this.source ??= this.settings.statusSource ? Promise.resolve(this.settings.statusSource) : serviceStatusSource(this.settings.client);
    return this.source;
  }

  /**
   * Adopts an existing remote object at a declared address. Call under `lock`. Every refusal
   * (undeclared or managed address, unknown id, object managed at another address) names the
   * address and leaves the state untouched.
   */
  async importResource(stack: DesiredStack, address: string, id: string): Promise<void> {
    await this.importResources(stack, [{ address, id }]);
  }

  /**
   * Adopts existing remote objects at declared addresses, all or none: the state is written
   * once, after every object was found and read (reads run at the engine's parallelism).
   * Call under `lock`. A refusal names its address and leaves the state untouched.
   */
  async importResources(
    stack: DesiredStack,
    objects: readonly { readonly address: string; readonly id: string }[],
    onProgress?: (done: number, total: number) => void,
  ): Promise<void> {
    const state = await this.settings.backend.read(stack.name);
    const ctx = await this.context(stack.provider);
    const claimed = new Map<string, string>();
    for (const { address } of objects) {
      if (state.resources[address] || claimed.has(address))
        throw new FleetformError(`${address} is already managed`, {
          path: address,
          hint: 'fleetform state rm it first to import another object',
        });
      claimed.set(address, address);
    }
    // Imports only read: as many in flight as a plan's reads start with.
    const inFlight = Math.max(this.settings.parallelism, Math.min(this.settings.readParallelism ?? this.settings.parallelism, 128));
    let done = 0;
    const entries = await mapLimited(objects, inFlight, async (object): Promise<[string, StateEntry]> => {
      const entry = await this.importedEntry(stack, ctx, state, object.address, object.id);
      onProgress?.(++done, objects.length);
      return [object.address, entry];
    });
    const taken = new Map<string, string>();
    for (const [address, entry] of entries) {
      for (const [k, v] of Object.entries(entry.ids)) {
        const key = `${entry.type}\u0000${k}\u0000${v}`;
        const twin = taken.get(key);
        if (twin !== undefined)
          throw new FleetformError(`${entry.type} ${v} is given twice, at ${twin} and ${address}`, {
            path: address,
            hint: 'an object is managed at one address only',
          });
        taken.set(key, address);
      }
    }
    for (const [address, entry] of entries) state.resources[address] = entry;
    state.serial += 1;
    await this.settings.backend.write(state);
  }

  /** The state entry of the object `id` at `address`, read from the service; refusals name the address. */
  private async importedEntry(stack: DesiredStack, ctx: KindContext, state: State, address: string, id: string): Promise<StateEntry> {
    const resource = stack.resources.find((r) => r.address === address);
    if (!resource) {
      throw new FleetformError(`stack ${stack.name} declares no ${address}`, {
        path: address,
        hint: `declared addresses: ${stack.resources.map((r) => r.address).join(', ') || '(none)'}`,
      });
    }
    const kind = this.settings.kinds.require(resource.type, address);
    const unknownId = () =>
      new FleetformError(`the service has no ${resource.type} with id ${JSON.stringify(id)}`, {
        path: address,
        hint: IMPORT_ID_HINT,
      });
    const applied = await atAddress(address, () => kind.importById(ctx, id));
    if (!applied) throw unknownId();
    const twin = Object.entries(state.resources).find(
      ([, e]) => e.type === resource.type && Object.entries(applied.ids).some(([k, v]) => e.ids[k] === v),
    );
    if (twin) {
      throw new FleetformError(`${resource.type} ${id} is already managed as ${twin[0]}`, {
        path: address,
        hint: `an object is managed at one address only: \`fleetform state rm ${twin[0]}\` first to move it`,
      });
    }
    const entry = {
      type: resource.type,
      ids: { ...applied.ids },
      outputs: { ...applied.outputs },
      attributes: null,
      dependencies: [...resource.dependsOn],
      private: {},
      sensitive_paths: [],
      status: 'ok' as const,
    };
    const observed = await atAddress(address, () => kind.observe(ctx, entry));
    if (!observed) throw unknownId();
    // The state holds the object as observed: the secrets in it are those the declaration and the code's attributes name.
    const sensitive = viewSecretPaths(kind, observed.view, [], resource.attributes);
    return { ...entry, attributes: maskPaths(observed.view, sensitive, state.lineage), sensitive_paths: sensitive };
  }
}

/** The targets a stack declares or holds in state (a stack's move's source counts as its destination). */
function targetsIn(stack: DesiredStack, state: State, targets: ReadonlySet<string>): Set<string> {
  const here = new Set<string>();
  for (const r of stack.resources) if (targets.has(r.address)) here.add(r.address);
  for (const address of Object.keys(state.resources)) if (targets.has(address)) here.add(address);
  return here;
}

/** Runs `work`; an error of it that names no field is reported at `address`. */
async function atAddress<T>(address: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof FleetformError && !err.path) throw new FleetformError(err.message, { path: address, hint: err.hint, cause: err });
    throw err;
  }
}

/** A target no stack declares or holds is refused, naming the address form to give. */
function refuseUnknownTargets(targets: ReadonlySet<string>, found: ReadonlySet<string>): void {
  const unknown = [...targets].filter((a) => !found.has(a));
  if (unknown.length === 0) return;
  const them = unknown.length > 1 ? 'them' : 'it';
  throw new FleetformError(`--target ${unknown.join(', ')}: no stack declares ${them} or holds ${them} in state`, {
    path: '--target',
    hint: 'give a resource address as the plan shows it, TYPE.NAME (e.g. fleetform_machine.picker-1); `fleetform state list` lists those in state',
  });
}
