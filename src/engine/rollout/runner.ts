/**
 * Runs a planned rollout: for each wave, writes its machines' configs through the executor
 * (guarded as any apply), waits until each machine passes its gate, and goes on; past the
 * abort threshold it stops and, by policy, writes every changed machine back to the config
 * it had before the rollout (guarded by the revision the rollout wrote), its state entry
 * with it.
 */
import { ServiceError, type ServiceClient } from '../../api/client';
import { abortReason, stepGate, waveVerdict, type GateTrack, type HealthVerdict, type RolloutPlan } from '../../domain/rollout';
import { isHeldByMaintenanceWhy } from '../../domain/maintenance';
import { WRITE_FAILURE_PREFIX } from '../../domain/model-promotion';
import { errorMessage as message } from '../../domain/errors';
import { heldOrJudged } from '../health/wait-healthy';
import type { ApplyOutcome } from '../apply-outcome';
import type { MachineReading, MachineStatusSource } from '../health/machine-status-source';
import type { ResourceChange } from '../plan-model';
import type { State, StateEntry } from '../state/schema';
import type { MachineOutcome, RolloutEvents, RolloutOutcome, WaveBoundary, WaveOutcome } from './events';
import type { JournalMachine, RolloutJournal, RolloutJournalStore } from '../state/rollout-journal';
import { releaseHint, type LateJoiner } from '../state/rollout-journal-pacing';
import { configAtRevision } from './part-history';
import { cachedServiceFetch, configRevision, importsFragments, revisionTime, type FragmentFetch } from '../fragment-fetch';
import { plannedConfig } from './plan';
import { isObject } from '../../domain/json-value';
import { mapLimited } from '../map-limited';
import { holdBeforeWave, runSteps, systemClock, writePaced, type PaceState, type RolloutClock, type WaveHold } from './pacing';
import { withLateJoiners } from './late-joiners';
import { runnerWaveAnalysis } from './analysis-run';
import { serviceSignals, type AnalysisSignals } from '../health/analysis-signals';

export interface RunRolloutInput {
  readonly plan: RolloutPlan;
  readonly changes: ReadonlyMap<string, ResourceChange>;
  /** Applies changes through the executor. */
  apply(changes: readonly ResourceChange[]): Promise<ApplyOutcome>;
  readState(): Promise<State>;
  /** Puts entries back in the state (rolled-back machines get the entry they had). */
  restoreEntries(entries: ReadonlyMap<string, StateEntry>): Promise<void>;
  readonly client: ServiceClient;
  readonly source: MachineStatusSource;
  readonly events: RolloutEvents;
  /** The most machines read or written back at once. */
  readonly concurrency: number;
  /** The most machine reads in flight while waiting at a gate (default 32, at least `concurrency`). */
  readonly readConcurrency?: number;
  /** How often machines are read while waiting. */
  readonly pollMs?: number;
  readonly journal: RolloutJournalStore;
  /** The journal of an interrupted run of this rollout: it goes on from there. */
  readonly resume?: RolloutJournal;
  /** How machines are written and put back; the stack's config changes by default. */
  readonly stage?: RolloutStage;
  /** Asked before each wave (the first of this run too): a reason pauses the rollout there. */
  readonly waveBoundary?: WaveBoundary;
  /** Where pacing and the schedule read the time and wait (the system's by default). */
  readonly clock?: RolloutClock;
  /** Whether to wait for the schedule's start (default), or leave the rollout waiting. */
  readonly waitForSchedule?: boolean;
  /** Where a wave's analysis reads its signals; the service's by default. */
  readonly signals?: AnalysisSignals;
}

/** One machine a stage wrote: its part, what puts it back, and the revision its gate waits for. */
export type StageWrite =
  | { readonly partId: string; readonly baseline: Written['baseline']; readonly prior: StateEntry; readonly revision: string }
  | { readonly partId: string | undefined; readonly error: string };

/**
 * How a rollout changes a wave's machines and puts them back: the stack's rollout writes
 * their planned configs (and writes the configs they had back), a fragment's rollout pins
 * their imports to its new revision (and back to the version they followed).
 */
export interface RolloutStage {
  /** Whether the machine has a change this run writes. */
  pending(address: string): boolean;
  /** Writes the machines (their state entries in `state`); each one's result by address. */
  write(targets: readonly MachineOutcome[], state: State): Promise<ReadonlyMap<string, StageWrite>>;
  /** Puts back every machine written (each outcome says how it went). */
  rollBack(written: readonly Written[], plan: RolloutPlan): Promise<void>;
}

/** What the rollout changed on one machine: enough to write it back. */
export interface Written {
  readonly outcome: MachineOutcome;
  readonly partId: string;
  /** The config before the rollout (read from the part history when the run resumed), and its revision. */
  /** The config the machine had before the rollout wrote it (and the text it was read from), or only its revision. */
  readonly baseline: { readonly config: Record<string, unknown> | undefined; readonly configJson?: string; readonly revision: string };
  readonly prior: StateEntry;
  /** The revision of the rollout's write. */
  readonly revision: string;
  track: GateTrack;
  /** Whether its last reading found the revision held back by the machine's maintenance window. */
  held?: boolean;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The poll interval for a gate: a quarter of its settle time, from 50 ms to 1 s. */
export function pollInterval(settleMs: number): number {
  return Math.min(1000, Math.max(50, Math.floor(settleMs / 4)));
}

function journalPlan(plan: RolloutPlan): RolloutJournal['plan'] {
  return {
    stack: plan.stack,
    policy: plan.policy,
    waves: plan.waves.map((w) => ({
      rule: w.rule,
      ...(w.from === undefined ? {} : { from: w.from }),
      machines: w.machines.map((m) => ({ address: m.address, name: m.name, ...(m.follows === undefined ? {} : { follows: m.follows }) })),
    })),
    ...(plan.fragment ? { fragment: plan.fragment } : {}),
  };
}

/** The waves to run: the plan's, or an interrupted run's with machines that joined since placed as late joiners. */
function wavesToRun(input: RunRolloutInput): { waves: RolloutPlan['waves']; joined: LateJoiner[] } {
  const { resume } = input;
  if (!resume) return { waves: input.plan.waves, joined: [] };
  return withLateJoiners(resume.plan.waves, input.plan.waves, resume.plan.policy, resume.wave, new Date().toISOString());
}

export async function runRollout(input: RunRolloutInput): Promise<RolloutOutcome> {
  const { source, events, resume } = input;
  const stage = input.stage ?? stackStage(input);
  const toRun = wavesToRun(input);
  const plan = { ...(resume?.plan ?? input.plan), waves: toRun.waves };
  const clock = input.clock ?? systemClock;
  const steps = runSteps(plan.policy, plan.waves);
  const { policy } = plan;
  const name = policy.name;
  const pollMs = input.pollMs ?? pollInterval(policy.gate.settle_ms);
  const started = Date.now();
  const waves: WaveOutcome[] = plan.waves.map((w) => ({
    rule: w.rule,
    machines: w.machines.map((m) => ({ machine: m.name, address: m.address, result: 'not reached' as const })),
  }));
  const result: RolloutOutcome = { stack: plan.stack, name, outcome: 'completed', onFailure: policy.on_failure, waves, seconds: 0 };
  const written: Written[] = [];
  let failed = 0;
  let reached = 0;
  const now = new Date().toISOString();
  const journal: RolloutJournal = resume
    ? { ...resume, plan: journalPlan(plan), updated_at: now }
    : { format: 1, stack: plan.stack, status: 'running', started_at: now, updated_at: now, wave: 1, plan: journalPlan(plan), machines: [] };
  if (toRun.joined.length > 0) {
    journal.late_joiners = [...(journal.late_joiners ?? []), ...toRun.joined];
    for (const j of toRun.joined) events({ type: 'joined', rollout: name, wave: j.wave, machine: j.name });
  }
  // A held journal runs again: what held it is asked again before its wave.
  journal.status = 'running';
  delete journal.hold;
  const pace: PaceState = { writes: [], progress: { wavesPassed: Math.max(0, (resume?.wave ?? 1) - 1), written: journal.machines.length } };
  let held: WaveHold | undefined;
  const holdHint = (h: WaveHold): string =>
    h.kind === 'waiting' ? 'the next apply at or after that time goes on' : releaseHint(plan.stack, name, plan.fragment !== undefined);
  const record = (w: Written, result: JournalMachine['result']): void => {
    const entry: JournalMachine = {
      address: w.outcome.address,
      name: w.outcome.machine,
      part_id: w.partId,
      baseline_revision: w.baseline.revision,
      written_revision: w.revision,
      result,
      prior: w.prior,
    };
    const at = journal.machines.findIndex((m) => m.address === entry.address);
    if (at >= 0) journal.machines[at] = entry;
    else journal.machines.push(entry);
  };
  const save = (): Promise<void> => input.journal.write({ ...journal, updated_at: new Date().toISOString() });
  const startWave = resume?.wave ?? 1;
  const reads = Math.max(input.concurrency, input.readConcurrency ?? 32);
  // What the interrupted run did: machines it wrote keep their baseline and are gated again in the current wave.
  const resumed = new Map((resume?.machines ?? []).map((m) => [m.address, m]));
  for (const [i, wave] of waves.entries()) {
    if (i + 1 > startWave) break;
    for (const m of wave.machines) {
      const j = resumed.get(m.address);
      if (i + 1 < startWave) reached += 1;
      if (!j) continue;
      const w: Written = {
        outcome: m,
        partId: j.part_id,
        baseline: { config: undefined, revision: j.baseline_revision },
        prior: j.prior,
        revision: j.written_revision,
        track: { writtenAt: Date.now(), verdict: 'pending', since: Date.now() },
      };
      written.push(w);
      if (j.result === 'failed') {
        m.result = 'failed';
        failed += 1;
      } else if (i + 1 < startWave) m.result = 'healthy';
    }
  }
  await save();

  const fail = async (
    wave: number,
    m: MachineOutcome,
    why: string,
    partId: string | undefined,
    problems: MachineOutcome['problems'] = [],
  ): Promise<void> => {
    m.result = 'failed';
    m.why = why;
    m.problems = problems;
    m.log = partId ? await source.errorLines(partId, 3) : [];
    failed += 1;
    events({ type: 'failed', rollout: name, wave, machine: m.machine, why, problems, log: m.log });
  };
  // The first wave of several is the canary: its failures are held to canary_max_failed.
  const isCanary = (wave: number): boolean => wave === 1 && waves.length > 1;
  const failedIn = (wave: number): number => (waves[wave - 1]?.machines ?? []).filter((m) => m.result === 'failed').length;
  const stopIfPast = (wave: number): boolean => {
    const reason = abortReason(failed, reached, policy.abort, isCanary(wave) ? failedIn(wave) : undefined);
    if (!reason) return false;
    result.outcome = 'stopped';
    result.reason = reason;
    result.stoppedAt = wave;
    events({ type: 'stopping', rollout: name, wave, reason, then: policy.on_failure });
    return true;
  };

  for (const [i, wave] of waves.entries()) {
    const number = i + 1;
    if (number < startWave) continue;
    held = await holdBeforeWave({
      policy,
      steps: steps[i],
      wave: number,
      released: journal.released ?? [],
      stopReleased: journal.stop_released === true,
      clock,
      wait: input.waitForSchedule !== false,
      onWait: (until) =>
        events({ type: 'pacing', rollout: name, wave: number, detail: `waiting for its schedule: wave ${number} starts at ${until}` }),
    });
    if (held) {
      result.outcome = held.kind === 'stop' ? 'stopped' : 'paused';
      result.reason = held.reason;
      result.stoppedAt = number;
      if (held.kind === 'stop') events({ type: 'stopping', rollout: name, wave: number, reason: held.reason, then: 'rollback' });
      else {
        result.held = true;
        result.reason = `${held.reason}; ${holdHint(held)}`;
        events({ type: 'paused', rollout: name, wave: number, reason: result.reason, held: true });
      }
      break;
    }
    const hold = input.waveBoundary?.({
      stack: plan.stack,
      rollout: name,
      wave: number,
      machines: wave.machines.map((m) => m.address),
      first: number === startWave,
    });
    if (hold !== undefined) {
      result.outcome = 'paused';
      result.reason = hold;
      result.stoppedAt = number;
      events({ type: 'paused', rollout: name, wave: number, reason: hold });
      break;
    }
    const waveStarted = Date.now();
    journal.wave = number;
    events({
      type: 'wave',
      rollout: name,
      wave: number,
      waves: waves.length,
      rule: wave.rule,
      machines: wave.machines.map((m) => m.machine),
    });
    const state = await input.readState();
    reached += wave.machines.length;
    const regated = new Set(
      written.filter((w) => wave.machines.includes(w.outcome) && w.outcome.result !== 'failed').map((w) => w.outcome.address),
    );
    if (regated.size > 0) events({ type: 'resumed', rollout: name, wave: number, machines: [...regated].length });

    // Offline machines follow the policy before anything is written to them.
    const targets: MachineOutcome[] = [];
    const toWrite = wave.machines.filter((m) => m.result === 'not reached' && stage.pending(m.address));
    await mapLimited(toWrite, reads, async (m) => {
      const partId = state.resources[m.address]?.ids.part_id;
      if (policy.offline !== 'wait' && partId) {
        const reading = await source.read(partId);
        if (reading.online === 'offline') {
          if (policy.offline === 'skip') {
            m.result = 'skipped';
            m.why = 'offline when its wave started; its change is left for a later apply';
            reached -= 1;
            events({ type: 'skipped', rollout: name, wave: number, machine: m.machine, why: m.why });
          } else await fail(number, m, 'offline when its wave started', partId);
          return;
        }
      }
      targets.push(m);
    });

    const paced = await writePaced(
      targets,
      { steps: steps[i], policy, stopReleased: journal.stop_released === true, clock, pace },
      (batch) => stage.write(batch, state),
    );
    const results = paced.results;
    const cutShort = targets.filter((m) => !paced.written.includes(m));
    targets.splice(0, targets.length, ...paced.written);
    reached -= cutShort.length;
    const notWritten = new Set<string>();
    await mapLimited(targets, reads, async (m) => {
      const r = results.get(m.address);
      if (!r || 'error' in r) {
        notWritten.add(m.address);
        await fail(number, m, r?.error ?? `${WRITE_FAILURE_PREFIX}: skipped by the executor`, r?.partId);
        return;
      }
      const at = Date.now();
      const earlier = written.find((w) => w.outcome === m);
      const w: Written = {
        outcome: m,
        partId: r.partId,
        // A machine written again after a resume keeps the baseline of its first write.
        baseline: earlier ? earlier.baseline : r.baseline,
        prior: earlier ? earlier.prior : r.prior,
        revision: r.revision,
        track: { writtenAt: at, verdict: 'pending', since: at },
      };
      if (earlier) written.splice(written.indexOf(earlier), 1);
      written.push(w);
      record(w, 'written');
    });
    await save();
    events({
      type: 'written',
      rollout: name,
      wave: number,
      machines: targets.length - notWritten.size,
      seconds: (Date.now() - waveStarted) / 1000,
    });

    let stopped = stopIfPast(number);
    if (!stopped && paced.cut?.action === 'rollback') {
      held = { kind: 'stop', reason: paced.cut.reason };
      result.outcome = 'stopped';
      result.reason = paced.cut.reason;
      result.stoppedAt = number;
      events({ type: 'stopping', rollout: name, wave: number, reason: paced.cut.reason, then: 'rollback' });
      stopped = true;
    }
    // Each machine is read when it is due: a pending one every poll, a healthy one once its settle time is over.
    const due = new Map<Written, number>(
      stopped ? [] : written.filter((w) => wave.machines.includes(w.outcome) && w.outcome.result === 'not reached').map((w) => [w, 0]),
    );
    while (due.size > 0 && !stopped) {
      const ready = [...due].filter(([, at]) => at <= Date.now()).map(([w]) => w);
      const failedBefore = failed;
      await mapLimited(ready, reads, async (w) => {
        if (stopped) return;
        const reading = await source.status(w.partId);
        const verdict: HealthVerdict | { health: 'unreachable'; why: string } = reading.reachable
          ? await heldOrJudged(source, w.partId, reading.status, w.revision, policy.gate.jobs_succeed)
          : {
              health: 'unreachable',
              why: `${reading.online === 'offline' ? 'offline: ' : ''}${reading.partUnreadable ? 'its part could not be read: ' : ''}${reading.reason}`,
            };
        const now = Date.now();
        const step = stepGate(w.track, verdict, now, policy.gate);
        const held = verdict.health === 'pending' && isHeldByMaintenanceWhy(verdict.why);
        if (held && step.outcome === 'waiting' && !w.held)
          events({ type: 'held', rollout: name, wave: number, machine: w.outcome.machine, why: verdict.why });
        w.held = held;
        w.track = step.track;
        if (step.outcome === 'passed') {
          due.delete(w);
          w.outcome.result = 'healthy';
          record(w, 'healthy');
          events({ type: 'healthy', rollout: name, wave: number, machine: w.outcome.machine, seconds: (now - w.track.writtenAt) / 1000 });
        } else if (step.outcome === 'failed') {
          due.delete(w);
          await fail(number, w.outcome, step.why, w.partId, step.problems);
          record(w, 'failed');
          stopped = stopped || stopIfPast(number);
        } else {
          const settled = w.track.since + policy.gate.settle_ms;
          due.set(
            w,
            w.track.verdict === 'healthy' || w.track.verdict === 'unhealthy'
              ? Math.max(now + 50, Math.min(settled, now + pollMs * 4))
              : now + pollMs,
          );
        }
      });
      // Failures are journaled as they come; a machine that passed is gated again after a resume.
      if (failed !== failedBefore) await save();
      if (stopped || due.size === 0) break;
      await sleep(Math.max(0, Math.min(...due.values()) - Date.now()));
    }
    if (stopped) {
      for (const w of due.keys()) {
        w.outcome.result = 'stopped';
        w.outcome.why = 'the rollout stopped while it was waiting for this machine';
      }
    }
    // Analysis: once the wave's machines passed their gate, its metrics must pass too.
    const analysis = stopped
      ? undefined
      : await runnerWaveAnalysis({
          rollout: name,
          wave: number,
          analyses: policy.analysis,
          waves,
          partOf: (address) => written.find((w) => w.outcome.address === address)?.partId ?? state.resources[address]?.ids.part_id,
          signals: async () => input.signals ?? serviceSignals(input.client, source),
          events,
          concurrency: reads,
          journal,
          save,
        });
    if (analysis) wave.analysis = analysis.report;
    if (analysis?.stop !== undefined) {
      // The wave's machines failed its analysis: they count as failed, with its reason.
      for (const w of written.filter((x) => wave.machines.includes(x.outcome) && x.outcome.result === 'healthy')) {
        w.outcome.result = 'failed';
        w.outcome.why = analysis.stop;
        failed += 1;
        record(w, 'failed');
      }
      stopped = true;
      result.outcome = 'stopped';
      result.reason = analysis.stop;
      result.stoppedAt = number;
      events({ type: 'stopping', rollout: name, wave: number, reason: analysis.stop, then: policy.on_failure });
    }
    wave.seconds = (Date.now() - waveStarted) / 1000;
    if (stopped) break;
    if (paced.cut) {
      // The schedule's stop came within the wave: what it wrote was gated; the rest waits for a release.
      held = {
        kind: 'paused',
        hold: { kind: 'stop-by', wave: number, since: new Date(clock.now()).toISOString() },
        reason: paced.cut.reason,
      };
      result.outcome = 'paused';
      result.held = true;
      result.reason = `${paced.cut.reason}; ${holdHint(held)}`;
      result.stoppedAt = number;
      events({ type: 'paused', rollout: name, wave: number, reason: result.reason, held: true });
      break;
    }
    const gated = wave.machines.filter((m) => m.result === 'healthy' || m.result === 'failed').length;
    const verdict = waveVerdict(failedIn(number), gated, policy.abort, isCanary(number));
    wave.verdict = verdict;
    events({ type: 'wave-ended', rollout: name, wave: number, seconds: wave.seconds, ...verdict });
    if (verdict.verdict === 'passed') pace.progress = { ...pace.progress, wavesPassed: pace.progress.wavesPassed + 1 };
    if (number < waves.length) {
      journal.wave = number + 1;
      await save();
    }
  }

  // The schedule's stop rolls back whatever the failure policy says.
  if (result.outcome === 'stopped' && (policy.on_failure === 'rollback' || held?.kind === 'stop')) {
    await stage.rollBack(written, plan);
    for (const w of written) if (w.outcome.rollback?.ok) record(w, 'rolled back');
  }
  // A paused rollout stays `running` in its journal (the next apply resumes it), unless its pacing holds it.
  journal.status = result.outcome === 'paused' ? 'running' : result.outcome;
  if (held?.kind === 'paused' || held?.kind === 'waiting') {
    journal.status = held.kind;
    journal.hold = held.hold;
  }
  if (result.reason && result.outcome !== 'paused') journal.reason = result.reason;
  await save();
  result.seconds = (Date.now() - started) / 1000;
  events({ type: 'done', rollout: name, outcome: result });
  return result;
}

/** The stack's rollout: each machine's planned config written through the executor, guarded by the revision the plan observed. */
function stackStage(input: RunRolloutInput): RolloutStage {
  const { client } = input;
  const reads = Math.max(input.concurrency, input.readConcurrency ?? 32);
  const fetch = cachedServiceFetch(client.appClient);
  return {
    pending: (address) => input.changes.has(address),
    async write(targets, state) {
      // The revision each machine has now: the plan observed it, and the write is guarded by it, so
      // the part history keeps its config for a rollback. Read only when the plan did not observe it.
      const baselines = new Map<string, { partId: string } & Written['baseline']>();
      await mapLimited(targets, reads, async (m) => {
        const partId = state.resources[m.address]?.ids.part_id;
        if (!partId) return;
        const observed = input.changes.get(m.address)?.observedVersion;
        if (observed && !Number.isNaN(Date.parse(observed))) {
          baselines.set(m.address, { partId, config: undefined, revision: observed });
          return;
        }
        const part = await client.appClient.getMachinePart(partId);
        baselines.set(m.address, {
          partId,
          config: part.config as Record<string, unknown>,
          ...(part.configJson === undefined ? {} : { configJson: part.configJson }),
          revision: part.lastUpdated?.toISOString() ?? '',
        });
      });
      const applied = await input.apply(
        targets.flatMap((m) => {
          const change = input.changes.get(m.address);
          return change ? [change] : [];
        }),
      );
      // A machine that joined as a new one has its part once created: nothing to go back to.
      await addCreatedBaselines(input, targets, baselines, state);
      const writeFailed = new Map(applied.failed.map((f) => [f.address, f.error]));
      const notWritten = new Set([...writeFailed.keys(), ...applied.skipped]);
      const out = new Map<string, StageWrite>();
      await mapLimited(targets, reads, async (m) => {
        const baseline = baselines.get(m.address);
        const prior = state.resources[m.address];
        if (notWritten.has(m.address) || !baseline || !prior) {
          out.set(m.address, {
            partId: baseline?.partId,
            error: `${WRITE_FAILURE_PREFIX}: ${message(writeFailed.get(m.address) ?? 'skipped by the executor')}`,
          });
          return;
        }
        const planned = plannedConfig(input.changes.get(m.address)?.after);
        const revision = await writtenRevision(client, baseline.partId, applied.revisions?.get(m.address), planned, fetch);
        out.set(m.address, { partId: baseline.partId, baseline, prior, revision });
      });
      return out;
    },
    rollBack: (written, plan) => rollBack(input, written, plan),
  };
}

/** The baseline revision of a machine the rollout created: it had no config before. */
export const CREATED_BASELINE = '';

/** The baselines of the targets the write created (their parts and state entries exist only now), kept in `state`. */
async function addCreatedBaselines(
  input: RunRolloutInput,
  targets: readonly MachineOutcome[],
  baselines: Map<string, { partId: string } & Written['baseline']>,
  state: State,
): Promise<void> {
  const created = targets.filter((m) => !baselines.has(m.address) && input.changes.get(m.address)?.action === 'create');
  if (created.length === 0) return;
  const after = await input.readState();
  for (const m of created) {
    const entry = after.resources[m.address];
    const partId = entry?.ids.part_id;
    if (!entry || !partId) continue;
    state.resources[m.address] = entry;
    baselines.set(m.address, { partId, config: undefined, revision: CREATED_BASELINE });
  }
}

/**
 * The config revision a machine runs once it ingested a write: the write's time (as the
 * executor reports it, else the part's), then every fragment its config reaches, as the
 * machine reports its revision. A config known to import nothing needs no read.
 */
async function writtenRevision(
  client: ServiceClient,
  partId: string,
  time: string | undefined,
  planned: unknown,
  fetch: FragmentFetch,
): Promise<string> {
  const reachesFragments = !isObject(planned) || importsFragments(planned);
  if (time !== undefined && !reachesFragments) return time;
  const part = await client.appClient.getMachinePart(partId);
  const at = time ?? part.lastUpdated?.toISOString() ?? '';
  return reachesFragments ? configRevision(at, part.config, partId, fetch) : at;
}

/**
 * Writes every changed machine back to the config it had, guarded by the revision the
 * rollout wrote (a machine changed since is left as it is, and said so), puts its state
 * entry back, and waits (up to the gate's timeout) for it to run that config again.
 */
export async function rollBack(
  input: Pick<RunRolloutInput, 'client' | 'events' | 'source' | 'concurrency' | 'pollMs' | 'restoreEntries'>,
  written: readonly Written[],
  plan: RolloutPlan,
): Promise<void> {
  const { client, events, source } = input;
  const name = plan.policy.name;
  const restored = new Map<string, StateEntry>();
  const back: WrittenBack[] = [];
  const fetch = cachedServiceFetch(client.appClient);
  await mapLimited(written, input.concurrency, async (w) => {
    const say = (ok: boolean, detail: string): void => {
      w.outcome.rollback = { ok, detail };
      events({ type: 'rolled-back', rollout: name, machine: w.outcome.machine, ok, detail });
    };
    if (w.baseline.revision === CREATED_BASELINE) {
      say(false, 'it joined the rollout as a new machine: left on its config (remove it from the code to delete it)');
      return;
    }
    try {
      const part = await client.appClient.getMachinePart(w.partId);
      const now = part.lastUpdated?.toISOString() ?? '';
      if (now !== revisionTime(w.revision)) {
        say(
          false,
          `its config was changed on the service after the rollout wrote it (revision ${now}, not ${revisionTime(w.revision)}); left as it is`,
        );
        return;
      }
      const baseline = w.baseline.config
        ? { config: w.baseline.config, configJson: w.baseline.configJson }
        : await configAtRevision(client, w.partId, w.baseline.revision);
      const readFrom = baseline.configJson === undefined ? [] : [baseline.configJson];
      const after = await client.appClient.updateMachinePart(part.id, part.name, baseline.config, part.lastUpdated, readFrom);
      restored.set(w.outcome.address, w.prior);
      const time = after.lastUpdated?.toISOString() ?? '';
      back.push({ w, revision: await configRevision(time, baseline.config, w.partId, fetch) });
    } catch (err) {
      const changed = err instanceof ServiceError && err.code === 'FAILED_PRECONDITION';
      say(
        false,
        changed ? 'its config was changed on the service while it was rolled back; left as it is' : `the write failed: ${message(err)}`,
      );
    }
  });
  if (restored.size > 0) await input.restoreEntries(restored);
  const said = (w: Written, detail: string): void => {
    w.outcome.rollback = { ok: true, detail };
    events({ type: 'rolled-back', rollout: name, machine: w.outcome.machine, ok: true, detail });
  };
  await awaitWrittenBack(
    back,
    (partId) => source.read(partId),
    {
      concurrency: input.concurrency,
      pollMs: input.pollMs ?? pollInterval(plan.policy.gate.settle_ms),
      timeoutMs: plan.policy.gate.timeout_ms,
    },
    {
      running: (w) => said(w, `back on the config it had (revision ${w.baseline.revision}), running it again`),
      late: (w) => said(w, `its previous config is written back; the machine had not ingested it within ${plan.policy.gate.timeout_ms} ms`),
    },
  );
}

/** A machine written back by a rollback, and the revision it runs once it has ingested that write. */
export interface WrittenBack {
  readonly w: Written;
  readonly revision: string;
}

/**
 * Waits, up to `timeoutMs`, until each machine written back runs the revision of that
 * write (read through `read`), and says of each whether it did (`running`) or had not
 * within the timeout (`late`).
 */
export async function awaitWrittenBack(
  back: readonly WrittenBack[],
  read: (partId: string) => Promise<MachineReading>,
  options: { readonly concurrency: number; readonly pollMs: number; readonly timeoutMs: number },
  say: { running(w: Written): void; late(w: Written): void },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let waiting = back;
  for (;;) {
    const still: WrittenBack[] = [];
    await mapLimited(waiting, options.concurrency, async (b) => {
      const reading = await read(b.w.partId);
      if (reading.reachable && reading.status.revision === b.revision) say.running(b.w);
      else still.push(b);
    });
    waiting = still;
    if (waiting.length === 0) return;
    if (Date.now() > deadline) break;
    await sleep(options.pollMs);
  }
  for (const b of waiting) say.late(b.w);
}
