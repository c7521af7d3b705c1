/**
 * The one executor of every apply: it runs a {@link Schedule}. Each schedule goes through the
 * same steps: open its waves, write its lead at once, run its waves behind its gate, write its
 * trail, close. A plain apply has only a lead; a rollout's waves and gate are its own (how a
 * wave writes its machines decides the few steps that differ, see {@link WaveSteps}).
 */
import { FleetformError } from '../../domain/errors';
import type { MachineStatusSource } from '../health/machine-status-source';
import type { ResourceChange } from '../plan-model';
import type { MachineOutcome, RolloutEvents, RolloutOutcome, WaveBoundary } from '../rollout/events';
import type { RolloutJournalStore } from '../state/rollout-journal';
import {
  liftPins,
  noteFragment,
  openFragmentRollout,
  pinnedMachineError,
  pinningStage,
  recordSavedRevision,
  runnerPlan,
  sayStopped,
  sayTagsStuck,
  tagRevisions,
  type FragmentRun,
} from '../rollout/fragment-rollout';
import { runRollout, type RunRolloutInput } from '../rollout/runner';
import type { State } from '../state/schema';
import type { ApplyOutcome } from '../apply-outcome';
import type { ApplyStackInput } from './outcome';
import { fragmentRolloutAddresses, plainSchedule, type Gate, type Schedule } from './schedule';
import { applyWrites } from './writes';

export type { ApplyOutcome } from '../apply-outcome';
export type { ApplyReporter, ApplyStackInput } from './outcome';
export { matchesPlanned } from './writes';

/** A machine of a stack's rollout that did not pass, as an apply failure. */
export class RolloutMachineError extends FleetformError {}

/** What a gated schedule needs besides the stack: where health is read, where the rollout reports and journals, and who may pause it. */
export interface GatingEnv {
  /** Where machine health is read (asked only when a gate waits). */
  readonly source: () => Promise<MachineStatusSource>;
  readonly events: RolloutEvents;
  readonly journals: RolloutJournalStore;
  /** Asked before each wave (the first of a run too): a reason pauses the rollout there. */
  readonly waveBoundary?: WaveBoundary;
  /** Whether a rollout waits for its schedule's start (default), or is left waiting for a later apply. */
  readonly waitForSchedule?: boolean;
}

/** What a schedule runs against: the stack, the state its lead starts from, the service; `gating` for a gated one. */
export interface ScheduleEnv extends Omit<ApplyStackInput, 'changes'> {
  readonly gating?: GatingEnv;
}

export type ScheduleOutcome = ApplyOutcome & { readonly rollout?: RolloutOutcome };

type Failure = { address: string; error: unknown };

/** One schedule being run: what its steps read, and what they tally (the only state they share). */
interface ScheduleRun {
  readonly schedule: Schedule;
  readonly env: ScheduleEnv;
  readonly tally: { applied: number; readonly failed: Failure[]; readonly skipped: string[]; rollout?: RolloutOutcome };
}

/** A gated schedule's waves: the steps that differ by how a wave writes its machines. */
interface WaveSteps {
  /** What is left unwritten when the lead fails. */
  readonly unwrittenIfLeadFails: readonly string[];
  /** After the lead went through (`wrote`: it had changes). */
  afterLead(wrote: boolean): Promise<void>;
  /** How the runner writes and puts back the waves' machines. */
  runner(run: ScheduleRun): Pick<RunRolloutInput, 'plan' | 'apply' | 'restoreEntries' | 'resume' | 'stage' | 'waveBoundary'>;
  /** Notes on the outcome what the waves moved. */
  noteOutcome(outcome: RolloutOutcome): void;
  /** A machine that did not pass its gate, as an apply failure. */
  machineError(m: MachineOutcome): FleetformError;
  /** What is left unwritten when the waves did not all pass. */
  unwrittenIfStopped(outcome: RolloutOutcome): readonly string[];
  /** Before the trail is written. */
  beforeTrail(): Promise<void>;
  /** When the trail failed. */
  trailFailed(): void;
  /** After the trail: the last writes, each failure of which is returned. */
  close(outcome: RolloutOutcome): Promise<Failure[]>;
}

/** Runs one schedule: its lead at once, then its waves behind its gate, then its trail. */
export async function executeSchedule(schedule: Schedule, env: ScheduleEnv): Promise<ScheduleOutcome> {
  const run: ScheduleRun = { schedule, env, tally: { applied: 0, failed: [], skipped: [] } };
  const waves = schedule.gate.kind === 'health' ? await openWaves(run, schedule.gate) : undefined;
  if (waves === 'refused') return outcomeOf(run);
  if (!(await writeLead(run, waves))) return outcomeOf(run);
  const outcome = waves ? await runWaves(run, waves) : undefined;
  if (outcome && !wavesPassed(run, waves, outcome)) return outcomeOf(run);
  if (!(await writeTrail(run, waves))) return outcomeOf(run);
  if (waves && outcome) run.tally.failed.push(...(await waves.close(outcome)));
  if (outcome) run.tally.skipped.push(...machinesLeft(outcome, ['skipped', 'not reached']));
  return outcomeOf(run);
}

/** Applies one stack's changes at once, ungated: a plain schedule through the executor. */
export function applyStack(input: ApplyStackInput): Promise<ApplyOutcome> {
  return executeSchedule(plainSchedule(input.stack.name, input.changes), input);
}

function outcomeOf(run: ScheduleRun): ScheduleOutcome {
  const { applied, failed, skipped, rollout } = run.tally;
  return { applied, failed, skipped, ...(rollout ? { rollout } : {}) };
}

function tallyWrites(run: ScheduleRun, r: ApplyOutcome): void {
  run.tally.applied += r.applied;
  run.tally.failed.push(...r.failed);
  run.tally.skipped.push(...r.skipped);
}

function gatingOf(run: ScheduleRun): GatingEnv {
  const { gating } = run.env;
  if (!gating)
    throw new FleetformError(`a rollout of stack ${run.schedule.stack} was scheduled without health gating`, {
      path: run.schedule.stack,
      hint: 'apply through the engine, which reads machine health',
    });
  return gating;
}

/** The writes of one step on the state as it is now (the lead of a plain apply starts from the planned state). */
async function writeNow(run: ScheduleRun, changes: readonly ResourceChange[], state?: State): Promise<ApplyOutcome> {
  const { env } = run;
  return applyWrites({ ...env, changes, state: state ?? (await env.backend.read(env.stack.name)) });
}

/** Prepares the waves of a gated schedule; 'refused' (its failure tallied) ends the schedule. */
async function openWaves(run: ScheduleRun, gate: Extract<Gate, { kind: 'health' }>): Promise<WaveSteps | 'refused'> {
  // Refused before anything is written when nothing can read machine health.
  const gating = gatingOf(run);
  if (run.schedule.write.kind === 'config') return configWaves(run, gate);
  const { env } = run;
  const fragmentEnv = {
    stack: env.stack.name,
    backend: env.backend,
    client: env.ctx.client,
    source: await gating.source(),
    events: gating.events,
    journals: gating.journals,
    concurrency: waveConcurrency(run),
  };
  const opened = await openFragmentRollout(fragmentEnv, gate.rollout, gate.resume, run.schedule.write.savesRevision);
  if (opened instanceof FleetformError) {
    run.tally.failed.push({ address: gate.rollout.fragment?.address ?? env.stack.name, error: opened });
    run.tally.skipped.push(...fragmentRolloutAddresses(gate.rollout).slice(1));
    return 'refused';
  }
  return pinWaves(run, opened);
}

function waveConcurrency(run: ScheduleRun): number {
  return Math.max(run.env.parallelism, 16);
}

/** Writes the lead at once; false when something of it failed (the waves then wait). */
async function writeLead(run: ScheduleRun, waves: WaveSteps | undefined): Promise<boolean> {
  const { lead, gate } = run.schedule;
  // A plain apply writes its one wave even when empty (its state is written back as read).
  if (lead.length > 0 || gate.kind === 'none') tallyWrites(run, await writeNow(run, lead, run.env.state));
  if (run.tally.failed.length > 0) {
    run.tally.skipped.push(...(waves?.unwrittenIfLeadFails ?? []));
    return false;
  }
  await waves?.afterLead(lead.length > 0);
  return true;
}

/** Runs the waves through the runner: each wave's machines written, then gated. */
async function runWaves(run: ScheduleRun, waves: WaveSteps): Promise<RolloutOutcome> {
  const gating = gatingOf(run);
  const outcome = await runRollout({
    changes: new Map(run.schedule.waves.flatMap((w) => w.writes).map((c) => [c.address, c])),
    readState: () => run.env.backend.read(run.env.stack.name),
    client: run.env.ctx.client,
    source: await gating.source(),
    events: gating.events,
    concurrency: waveConcurrency(run),
    journal: gating.journals,
    ...(gating.waitForSchedule === false ? { waitForSchedule: false } : {}),
    ...waves.runner(run),
  });
  waves.noteOutcome(outcome);
  run.tally.rollout = outcome;
  const failed = outcome.waves.flatMap((w) => w.machines).filter((m) => m.result === 'failed');
  run.tally.failed.push(...failed.map((m) => ({ address: m.address, error: waves.machineError(m) })));
  return outcome;
}

/** Whether every wave passed; when not, what the schedule leaves unwritten is tallied. */
function wavesPassed(run: ScheduleRun, waves: WaveSteps | undefined, outcome: RolloutOutcome): boolean {
  if (outcome.outcome === 'completed' || !waves) return true;
  run.tally.skipped.push(...waves.unwrittenIfStopped(outcome));
  return false;
}

/** Writes the trail at once; false when something of it failed. */
async function writeTrail(run: ScheduleRun, waves: WaveSteps | undefined): Promise<boolean> {
  const { trail } = run.schedule;
  if (trail.length === 0) return true;
  await waves?.beforeTrail();
  const r = await writeNow(run, trail);
  run.tally.applied += r.applied;
  run.tally.failed.push(...r.failed);
  if (r.failed.length === 0) return true;
  waves?.trailFailed();
  const outcome = run.tally.rollout;
  if (outcome) run.tally.skipped.push(...machinesLeft(outcome, ['skipped']));
  return false;
}

/** The caller's wave boundary, which may pause any rollout between its waves. */
function pauses(run: ScheduleRun): Pick<RunRolloutInput, 'waveBoundary'> {
  const { waveBoundary } = gatingOf(run);
  return waveBoundary ? { waveBoundary } : {};
}

/**
 * How many of the machines `written` names keep what was written: those that passed (or
 * were waiting when the rollout stopped) and were not rolled back. A machine that failed
 * counts as failed only; one rolled back, as neither.
 */
export function standingWrites(outcome: RolloutOutcome, written: ReadonlySet<string>): number {
  return outcome.waves
    .flatMap((w) => w.machines)
    .filter((m) => written.has(m.address) && (m.result === 'healthy' || m.result === 'stopped') && m.rollback?.ok !== true).length;
}

function machinesLeft(outcome: RolloutOutcome, results: ReadonlyArray<MachineOutcome['result']>): string[] {
  return outcome.waves
    .flatMap((w) => w.machines)
    .filter((m) => results.includes(m.result))
    .map((m) => m.address);
}

/** A stack's rollout: each wave's planned machine configs written through the executor's writes. */
function configWaves(run: ScheduleRun, gate: Extract<Gate, { kind: 'health' }>): WaveSteps {
  const { rollout, resume } = gate;
  const { backend, stack } = run.env;
  // The machines this apply wrote: counted applied once the rollout says their change stands.
  const written = new Set<string>();
  return {
    unwrittenIfLeadFails: rollout.waves.flatMap((w) => w.machines.map((m) => m.address)),
    afterLead: () => Promise.resolve(),
    runner: () => ({
      plan: rollout,
      apply: async (wave) => {
        const r = await writeNow(run, wave);
        const unwritten = new Set([...r.failed.map((f) => f.address), ...r.skipped]);
        for (const c of wave) if (!unwritten.has(c.address)) written.add(c.address);
        return r;
      },
      restoreEntries: async (entries) => {
        const state = await backend.read(stack.name);
        for (const [address, entry] of entries) state.resources[address] = entry;
        state.serial += 1;
        await backend.write(state);
      },
      ...(resume ? { resume } : {}),
      ...pauses(run),
    }),
    noteOutcome: (outcome) => {
      run.tally.applied += standingWrites(outcome, written);
    },
    machineError: (m) =>
      new RolloutMachineError(`rollout ${rollout.policy.name}: ${m.machine} failed: ${m.why ?? ''}`, { path: m.address }),
    unwrittenIfStopped: (outcome) => machinesLeft(outcome, ['skipped', 'not reached']),
    beforeTrail: () => Promise.resolve(),
    trailFailed: () => undefined,
    close: () => Promise.resolve([]),
  };
}

/** A fragment's rollout: each wave's machines pinned to the fragment's saved revision; its tags move, then its pins are lifted. */
function pinWaves(run: ScheduleRun, fragment: FragmentRun): WaveSteps {
  let ran: ReadonlyMap<string, string> = new Map();
  return {
    unwrittenIfLeadFails: fragmentRolloutAddresses(fragment.plan).slice(1),
    afterLead: (wrote) =>
      run.schedule.write.kind === 'fragment-pin' && run.schedule.write.savesRevision
        ? recordSavedRevision(fragment, wrote)
        : Promise.resolve(),
    runner: () => ({
      plan: runnerPlan(fragment),
      apply: () => Promise.resolve({ applied: 0, failed: [], skipped: [] }),
      restoreEntries: () => Promise.resolve(),
      resume: fragment.journal,
      stage: pinningStage(fragment),
      ...pauses(run),
    }),
    noteOutcome: (outcome) => noteFragment(fragment, outcome),
    machineError: (m) => pinnedMachineError(fragment, m),
    unwrittenIfStopped: () => {
      sayStopped(fragment);
      return fragment.target.tags.map((t) => t.address);
    },
    beforeTrail: async () => {
      ran = await tagRevisions(fragment);
    },
    trailFailed: () => sayTagsStuck(fragment),
    close: async (outcome) => {
      if (run.schedule.trail.length === 0) ran = await tagRevisions(fragment);
      return liftPins(fragment, outcome, ran);
    },
  };
}
