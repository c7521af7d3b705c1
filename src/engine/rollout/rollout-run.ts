/**
 * One run of a planned rollout, as an object: its fields are the run's state (the waves and
 * their outcomes, the journal, what was written, the pacing, the tallies), its methods the
 * run's steps: start (or resume), then for each wave admit late joiners, hold, write, gate,
 * analyse and end it; then finish (rolling back when it stopped so).
 */
import { WRITE_FAILURE_PREFIX } from '../../domain/model-promotion';
import { abortReason, stepGate, waveVerdict, type HealthVerdict, type RolloutPlan, type RolloutWaveMachine } from '../../domain/rollout';
import { isHeldByMaintenanceWhy } from '../../domain/maintenance';
import { heldOrJudged } from '../health/wait-healthy';
import { serviceSignals } from '../health/analysis-signals';
import type { State } from '../state/schema';
import type { JournalMachine, RolloutJournal } from '../state/rollout-journal';
import { releaseHint, type LateJoiner } from '../state/rollout-journal-pacing';
import { mapLimited } from '../map-limited';
import type { MachineOutcome, RolloutOutcome, WaveOutcome } from './events';
import {
  holdBeforeWave,
  runSteps,
  systemClock,
  writePaced,
  type PacedWrites,
  type PaceState,
  type RolloutClock,
  type WaveHold,
} from './pacing';
import type { WaveSteps } from '../../domain/rollout-pacing';
import { placeJoiners, withLateJoiners } from './late-joiners';
import { runnerWaveAnalysis } from './analysis-run';
import { pollInterval, type RolloutStage, type RunRolloutInput, type StageWrite, type Written } from './run-types';
import { stackStage } from './stack-stage';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

type RunWaves = Array<{ rule: string; machines: RolloutWaveMachine[]; from?: number }>;

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

type PacedWave = PacedWrites<MachineOutcome, StageWrite>;

export class RolloutRun {
  private readonly stage: RolloutStage;
  /** Each wave's machines are its own: machines found to join at a boundary are added to them. */
  private readonly runWaves: RunWaves;
  private readonly plan: RolloutPlan & { readonly waves: RunWaves };
  private readonly clock: RolloutClock;
  private readonly steps: WaveSteps[];
  private readonly pollMs: number;
  private readonly reads: number;
  private readonly started = Date.now();
  private readonly startWave: number;
  private readonly joinedOnResume: LateJoiner[];
  private readonly waves: WaveOutcome[];
  private readonly result: RolloutOutcome;
  private readonly written: Written[] = [];
  private readonly journal: RolloutJournal;
  private readonly pace: PaceState;
  private failed = 0;
  private reached = 0;
  /** Set once the wave being gated stops the rollout. */
  private stopped = false;
  private held: WaveHold | undefined;

  constructor(private readonly input: RunRolloutInput) {
    const { resume } = input;
    this.stage = input.stage ?? stackStage(input);
    const toRun = wavesToRun(input);
    this.joinedOnResume = toRun.joined;
    this.runWaves = toRun.waves.map((w) => ({ ...w, machines: [...w.machines] }));
    this.plan = { ...(resume?.plan ?? input.plan), waves: this.runWaves };
    this.clock = input.clock ?? systemClock;
    this.steps = runSteps(this.policy, this.plan.waves);
    this.pollMs = input.pollMs ?? pollInterval(this.policy.gate.settle_ms);
    this.reads = Math.max(input.concurrency, input.readConcurrency ?? 32);
    this.startWave = resume?.wave ?? 1;
    this.waves = this.plan.waves.map((w) => ({
      rule: w.rule,
      machines: w.machines.map((m) => ({ machine: m.name, address: m.address, result: 'not reached' as const })),
    }));
    const { policy } = this;
    this.result = {
      stack: this.plan.stack,
      name: policy.name,
      outcome: 'completed',
      onFailure: policy.on_failure,
      waves: this.waves,
      seconds: 0,
    };
    const now = new Date().toISOString();
    this.journal = resume
      ? { ...resume, plan: journalPlan(this.plan), updated_at: now }
      : {
          format: 1,
          stack: this.plan.stack,
          status: 'running',
          started_at: now,
          updated_at: now,
          wave: 1,
          plan: journalPlan(this.plan),
          machines: [],
        };
    this.pace = { writes: [], progress: { wavesPassed: Math.max(0, (resume?.wave ?? 1) - 1), written: this.journal.machines.length } };
  }

  private get policy(): RolloutPlan['policy'] {
    return this.plan.policy;
  }

  private get name(): string {
    return this.plan.policy.name;
  }

  /** Runs the rollout from its start wave to its end, a stop or a hold. */
  async run(): Promise<RolloutOutcome> {
    await this.start();
    for (const [i, wave] of this.waves.entries()) {
      if (i + 1 < this.startWave) continue;
      if (!(await this.runWave(i + 1, wave))) break;
    }
    return this.finish();
  }

  /** Journals the run (going on from an interrupted one): the machines that joined since, and what it wrote before. */
  private async start(): Promise<void> {
    const { journal } = this;
    if (this.joinedOnResume.length > 0) {
      journal.late_joiners = [...(journal.late_joiners ?? []), ...this.joinedOnResume];
      for (const j of this.joinedOnResume) this.input.events({ type: 'joined', rollout: this.name, wave: j.wave, machine: j.name });
    }
    // A held journal runs again: what held it is asked again before its wave.
    journal.status = 'running';
    delete journal.hold;
    this.resumeWritten();
    await this.save();
  }

  /** What the interrupted run did: machines it wrote keep their baseline and are gated again in the current wave. */
  private resumeWritten(): void {
    const resumed = new Map((this.input.resume?.machines ?? []).map((m) => [m.address, m]));
    for (const [i, wave] of this.waves.entries()) {
      if (i + 1 > this.startWave) break;
      for (const m of wave.machines) {
        const j = resumed.get(m.address);
        if (i + 1 < this.startWave) this.reached += 1;
        if (!j) continue;
        this.written.push({
          outcome: m,
          partId: j.part_id,
          baseline: { config: undefined, revision: j.baseline_revision },
          prior: j.prior,
          revision: j.written_revision,
          track: { writtenAt: Date.now(), verdict: 'pending', since: Date.now() },
        });
        if (j.result === 'failed') {
          m.result = 'failed';
          this.failed += 1;
        } else if (i + 1 < this.startWave) m.result = 'healthy';
      }
    }
  }

  /** One wave: joiners admitted, held or written, gated, analysed and ended; false when the rollout goes no further. */
  private async runWave(number: number, wave: WaveOutcome): Promise<boolean> {
    await this.admitJoiners(number);
    if (await this.heldBefore(number, wave)) return false;
    const waveStarted = Date.now();
    this.journal.wave = number;
    const { events } = this.input;
    events({
      type: 'wave',
      rollout: this.name,
      wave: number,
      waves: this.waves.length,
      rule: wave.rule,
      machines: wave.machines.map((m) => m.machine),
    });
    const state = await this.input.readState();
    this.reached += wave.machines.length;
    const regated = this.written.filter((w) => wave.machines.includes(w.outcome) && w.outcome.result !== 'failed');
    if (regated.length > 0) events({ type: 'resumed', rollout: this.name, wave: number, machines: regated.length });
    const targets = await this.onlineTargets(number, wave, state);
    const paced = await this.writeWave(number, targets, state, waveStarted);
    this.stopped = this.stopIfPast(number) || this.stopAtCut(number, paced);
    await this.gate(number, wave);
    await this.analyse(number, wave, state);
    wave.seconds = (Date.now() - waveStarted) / 1000;
    if (this.stopped) return false;
    if (paced.cut) {
      this.pauseAtCut(number, paced.cut.reason);
      return false;
    }
    await this.endWave(number, wave);
    return true;
  }

  /** Machines that started to need the rollout since it began join it where the policy puts late joiners. */
  private async admitJoiners(number: number): Promise<void> {
    if (!this.stage.joiners) return;
    const known = new Set(this.runWaves.flatMap((w) => w.machines.map((m) => m.address)));
    const found = await this.stage.joiners(await this.input.readState(), known);
    if (found.length === 0) return;
    const sides = this.runWaves.map((w, k) => ({ planned: w.machines, outcomes: this.waves[k]?.machines ?? [] }));
    const joined = placeJoiners(sides, found, this.policy, number, new Date().toISOString());
    if (joined.length === 0) return;
    this.journal.late_joiners = [...(this.journal.late_joiners ?? []), ...joined];
    this.journal.plan = journalPlan(this.plan);
    for (const j of joined) this.input.events({ type: 'joined', rollout: this.name, wave: j.wave, machine: j.name });
    await this.save();
  }

  /** Whether a pause step, the schedule or the caller's boundary holds the rollout before the wave (saying so). */
  private async heldBefore(number: number, wave: WaveOutcome): Promise<boolean> {
    const { events } = this.input;
    const name = this.name;
    this.held = await holdBeforeWave({
      policy: this.policy,
      steps: this.steps[number - 1],
      wave: number,
      released: this.journal.released ?? [],
      stopReleased: this.journal.stop_released === true,
      clock: this.clock,
      wait: this.input.waitForSchedule !== false,
      onWait: (until) =>
        events({ type: 'pacing', rollout: name, wave: number, detail: `waiting for its schedule: wave ${number} starts at ${until}` }),
    });
    const { held, result } = this;
    if (held) {
      result.outcome = held.kind === 'stop' ? 'stopped' : 'paused';
      result.reason = held.reason;
      result.stoppedAt = number;
      if (held.kind === 'stop') events({ type: 'stopping', rollout: name, wave: number, reason: held.reason, then: 'rollback' });
      else {
        result.held = true;
        result.reason = `${held.reason}; ${this.holdHint(held)}`;
        events({ type: 'paused', rollout: name, wave: number, reason: result.reason, held: true });
      }
      return true;
    }
    const hold = this.input.waveBoundary?.({
      stack: this.plan.stack,
      rollout: name,
      wave: number,
      machines: wave.machines.map((m) => m.address),
      first: number === this.startWave,
    });
    if (hold === undefined) return false;
    result.outcome = 'paused';
    result.reason = hold;
    result.stoppedAt = number;
    events({ type: 'paused', rollout: name, wave: number, reason: hold });
    return true;
  }

  private holdHint(h: WaveHold): string {
    return h.kind === 'waiting'
      ? 'the next apply at or after that time goes on'
      : releaseHint(this.plan.stack, this.name, this.plan.fragment !== undefined);
  }

  /** The wave's machines to write: offline ones follow the policy before anything is written to them. */
  private async onlineTargets(number: number, wave: WaveOutcome, state: State): Promise<MachineOutcome[]> {
    const { policy } = this;
    const targets: MachineOutcome[] = [];
    const toWrite = wave.machines.filter((m) => m.result === 'not reached' && this.stage.pending(m.address));
    await mapLimited(toWrite, this.reads, async (m) => {
      const partId = state.resources[m.address]?.ids.part_id;
      if (policy.offline !== 'wait' && partId) {
        const reading = await this.input.source.read(partId);
        if (reading.online === 'offline') {
          if (policy.offline === 'skip') {
            m.result = 'skipped';
            m.why = 'offline when its wave started; its change is left for a later apply';
            this.reached -= 1;
            this.input.events({ type: 'skipped', rollout: this.name, wave: number, machine: m.machine, why: m.why });
          } else await this.fail(number, m, 'offline when its wave started', partId);
          return;
        }
      }
      targets.push(m);
    });
    return targets;
  }

  /** Writes the targets at the wave's pace and journals each one written (or fails it). */
  private async writeWave(number: number, targets: MachineOutcome[], state: State, waveStarted: number): Promise<PacedWave> {
    const paced = await writePaced(
      targets,
      {
        steps: this.steps[number - 1],
        policy: this.policy,
        stopReleased: this.journal.stop_released === true,
        clock: this.clock,
        pace: this.pace,
      },
      (batch) => this.stage.write(batch, state),
    );
    this.reached -= targets.length - paced.written.length;
    let notWritten = 0;
    await mapLimited(paced.written, this.reads, async (m) => {
      const r = paced.results.get(m.address);
      if (!r || 'error' in r) {
        notWritten += 1;
        await this.fail(number, m, r?.error ?? `${WRITE_FAILURE_PREFIX}: skipped by the executor`, r?.partId);
        return;
      }
      const at = Date.now();
      const earlier = this.written.find((w) => w.outcome === m);
      const w: Written = {
        outcome: m,
        partId: r.partId,
        // A machine written again after a resume keeps the baseline of its first write.
        baseline: earlier ? earlier.baseline : r.baseline,
        prior: earlier ? earlier.prior : r.prior,
        revision: r.revision,
        track: { writtenAt: at, verdict: 'pending', since: at },
      };
      if (earlier) this.written.splice(this.written.indexOf(earlier), 1);
      this.written.push(w);
      this.record(w, 'written');
    });
    await this.save();
    const machines = paced.written.length - notWritten;
    this.input.events({ type: 'written', rollout: this.name, wave: number, machines, seconds: (Date.now() - waveStarted) / 1000 });
    return paced;
  }

  /** Whether the schedule's stop cut the wave's writes short with a rollback: the rollout stops. */
  private stopAtCut(number: number, paced: PacedWave): boolean {
    if (paced.cut?.action !== 'rollback') return false;
    this.held = { kind: 'stop', reason: paced.cut.reason };
    this.stopWith(number, paced.cut.reason, 'rollback');
    return true;
  }

  private stopWith(number: number, reason: string, then: RolloutOutcome['onFailure']): void {
    this.result.outcome = 'stopped';
    this.result.reason = reason;
    this.result.stoppedAt = number;
    this.input.events({ type: 'stopping', rollout: this.name, wave: number, reason, then });
  }

  /** Waits until each written machine of the wave passed or failed its gate, or the rollout stops. */
  private async gate(number: number, wave: WaveOutcome): Promise<void> {
    // Each machine is read when it is due: a pending one every poll, a healthy one once its settle time is over.
    const due = new Map<Written, number>(
      this.stopped
        ? []
        : this.written.filter((w) => wave.machines.includes(w.outcome) && w.outcome.result === 'not reached').map((w) => [w, 0]),
    );
    while (due.size > 0 && !this.stopped) {
      const ready = [...due].filter(([, at]) => at <= Date.now()).map(([w]) => w);
      const failedBefore = this.failed;
      await mapLimited(ready, this.reads, (w) => (this.stopped ? Promise.resolve() : this.gateOne(number, w, due)));
      // Failures are journaled as they come; a machine that passed is gated again after a resume.
      if (this.failed !== failedBefore) await this.save();
      if (this.stopped || due.size === 0) break;
      await sleep(Math.max(0, Math.min(...due.values()) - Date.now()));
    }
    if (!this.stopped) return;
    for (const w of due.keys()) {
      w.outcome.result = 'stopped';
      w.outcome.why = 'the rollout stopped while it was waiting for this machine';
    }
  }

  /** Reads one machine and steps its gate: passed, failed (maybe stopping the rollout) or due again. */
  private async gateOne(number: number, w: Written, due: Map<Written, number>): Promise<void> {
    const { source, events } = this.input;
    const { gate } = this.policy;
    const reading = await source.status(w.partId);
    const verdict: HealthVerdict | { health: 'unreachable'; why: string } = reading.reachable
      ? await heldOrJudged(source, w.partId, reading.status, w.revision, gate.jobs_succeed)
      : {
          health: 'unreachable',
          why: `${reading.online === 'offline' ? 'offline: ' : ''}${reading.partUnreadable ? 'its part could not be read: ' : ''}${reading.reason}`,
        };
    const now = Date.now();
    const step = stepGate(w.track, verdict, now, gate);
    const held = verdict.health === 'pending' && isHeldByMaintenanceWhy(verdict.why);
    if (held && step.outcome === 'waiting' && !w.held)
      events({ type: 'held', rollout: this.name, wave: number, machine: w.outcome.machine, why: verdict.why });
    w.held = held;
    w.track = step.track;
    if (step.outcome === 'passed') {
      due.delete(w);
      w.outcome.result = 'healthy';
      this.record(w, 'healthy');
      events({ type: 'healthy', rollout: this.name, wave: number, machine: w.outcome.machine, seconds: (now - w.track.writtenAt) / 1000 });
    } else if (step.outcome === 'failed') {
      due.delete(w);
      await this.fail(number, w.outcome, step.why, w.partId, step.problems);
      this.record(w, 'failed');
      this.stopped = this.stopped || this.stopIfPast(number);
    } else {
      const settled = w.track.since + gate.settle_ms;
      const settling = w.track.verdict === 'healthy' || w.track.verdict === 'unhealthy';
      due.set(w, settling ? Math.max(now + 50, Math.min(settled, now + this.pollMs * 4)) : now + this.pollMs);
    }
  }

  /** Once the wave's machines passed their gate, its metrics must pass too: a failed analysis fails them and stops the rollout. */
  private async analyse(number: number, wave: WaveOutcome, state: State): Promise<void> {
    if (this.stopped) return;
    const { input } = this;
    const analysis = await runnerWaveAnalysis({
      rollout: this.name,
      wave: number,
      analyses: this.policy.analysis,
      waves: this.waves,
      partOf: (address) => this.written.find((w) => w.outcome.address === address)?.partId ?? state.resources[address]?.ids.part_id,
      signals: async () => input.signals ?? serviceSignals(input.client, input.source),
      events: input.events,
      concurrency: this.reads,
      journal: this.journal,
      save: () => this.save(),
    });
    if (analysis) wave.analysis = analysis.report;
    if (analysis?.stop === undefined) return;
    // The wave's machines failed its analysis: they count as failed, with its reason.
    for (const w of this.written.filter((x) => wave.machines.includes(x.outcome) && x.outcome.result === 'healthy')) {
      w.outcome.result = 'failed';
      w.outcome.why = analysis.stop;
      this.failed += 1;
      this.record(w, 'failed');
    }
    this.stopped = true;
    this.stopWith(number, analysis.stop, this.policy.on_failure);
  }

  /** The schedule's stop came within the wave: what it wrote was gated; the rest waits for a release. */
  private pauseAtCut(number: number, reason: string): void {
    this.held = { kind: 'paused', hold: { kind: 'stop-by', wave: number, since: new Date(this.clock.now()).toISOString() }, reason };
    const { result } = this;
    result.outcome = 'paused';
    result.held = true;
    result.reason = `${reason}; ${this.holdHint(this.held)}`;
    result.stoppedAt = number;
    this.input.events({ type: 'paused', rollout: this.name, wave: number, reason: result.reason, held: true });
  }

  /** The wave's verdict, said; the ramp goes on from a passed wave, and the journal moves to the next. */
  private async endWave(number: number, wave: WaveOutcome): Promise<void> {
    const gated = wave.machines.filter((m) => m.result === 'healthy' || m.result === 'failed').length;
    const verdict = waveVerdict(this.failedIn(number), gated, this.policy.abort, this.isCanary(number));
    wave.verdict = verdict;
    this.input.events({ type: 'wave-ended', rollout: this.name, wave: number, seconds: wave.seconds ?? 0, ...verdict });
    if (verdict.verdict === 'passed') this.pace.progress = { ...this.pace.progress, wavesPassed: this.pace.progress.wavesPassed + 1 };
    if (number < this.waves.length) {
      this.journal.wave = number + 1;
      await this.save();
    }
  }

  /** Rolls back when it stopped so, journals how the run ended, and says so. */
  private async finish(): Promise<RolloutOutcome> {
    const { result, journal, held, policy } = this;
    // The schedule's stop rolls back whatever the failure policy says.
    if (result.outcome === 'stopped' && (policy.on_failure === 'rollback' || held?.kind === 'stop')) {
      await this.stage.rollBack(this.written, this.plan);
      for (const w of this.written) if (w.outcome.rollback?.ok) this.record(w, 'rolled back');
    }
    // A paused rollout stays `running` in its journal (the next apply resumes it), unless its pacing holds it.
    journal.status = result.outcome === 'paused' ? 'running' : result.outcome;
    if (held?.kind === 'paused' || held?.kind === 'waiting') {
      journal.status = held.kind;
      journal.hold = held.hold;
    }
    if (result.reason && result.outcome !== 'paused') journal.reason = result.reason;
    await this.save();
    result.seconds = (Date.now() - this.started) / 1000;
    this.input.events({ type: 'done', rollout: this.name, outcome: result });
    return result;
  }

  private async fail(
    wave: number,
    m: MachineOutcome,
    why: string,
    partId: string | undefined,
    problems: MachineOutcome['problems'] = [],
  ): Promise<void> {
    m.result = 'failed';
    m.why = why;
    m.problems = problems;
    m.log = partId ? await this.input.source.errorLines(partId, 3) : [];
    this.failed += 1;
    this.input.events({ type: 'failed', rollout: this.name, wave, machine: m.machine, why, problems, log: m.log });
  }

  /** The first wave of several is the canary: its failures are held to canary_max_failed. */
  private isCanary(wave: number): boolean {
    return wave === 1 && this.waves.length > 1;
  }

  private failedIn(wave: number): number {
    return (this.waves[wave - 1]?.machines ?? []).filter((m) => m.result === 'failed').length;
  }

  private stopIfPast(wave: number): boolean {
    const reason = abortReason(this.failed, this.reached, this.policy.abort, this.isCanary(wave) ? this.failedIn(wave) : undefined);
    if (!reason) return false;
    this.stopWith(wave, reason, this.policy.on_failure);
    return true;
  }

  private record(w: Written, result: JournalMachine['result']): void {
    const entry: JournalMachine = {
      address: w.outcome.address,
      name: w.outcome.machine,
      part_id: w.partId,
      baseline_revision: w.baseline.revision,
      written_revision: w.revision,
      result,
      prior: w.prior,
    };
    const at = this.journal.machines.findIndex((m) => m.address === entry.address);
    if (at >= 0) this.journal.machines[at] = entry;
    else this.journal.machines.push(entry);
  }

  private save(): Promise<void> {
    return this.input.journal.write({ ...this.journal, updated_at: new Date().toISOString() });
  }
}
