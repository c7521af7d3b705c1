/**
 * A rollout's pacing as it runs: before each wave, whether a pause step or the schedule
 * holds it (waiting for the schedule's start when told to); within a wave, each machine
 * written no sooner than the rate allows and no later than the schedule's stop. The
 * decisions are the domain's (rollout-pacing); this acts on them with the run's clock.
 */
import {
  nextWriteAt,
  plannedWaveSteps,
  scheduleVerdict,
  waveRate,
  type RampProgress,
  type RolloutStopAction,
  type WaveSteps,
} from '../../domain/rollout-pacing';
import type { RolloutPolicy } from '../../domain/rollout';
import type { JournalHold } from '../state/rollout-journal-pacing';

/** Where a rollout reads the time and waits: the system's, or one a test drives. */
export interface RolloutClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemClock: RolloutClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms))),
};

/** The longest single wait for a schedule's start, so a long wait still notices the clock. */
const LONGEST_WAIT_MS = 60_000;

/** The steps of the waves a rollout runs (a wave without its policy index counts as its position). */
export function runSteps(policy: RolloutPolicy, waves: ReadonlyArray<{ readonly from?: number }>): WaveSteps[] {
  return plannedWaveSteps(
    policy.pacing,
    waves.map((w, i) => w.from ?? i),
  );
}

/** What holds a rollout before a wave. */
export type WaveHold =
  /** Held until released (a pause step, or the schedule's stop): journaled `paused`. */
  | { readonly kind: 'paused'; readonly hold: JournalHold; readonly reason: string }
  /** The schedule's start is ahead and the run does not wait: journaled `waiting`. */
  | { readonly kind: 'waiting'; readonly hold: JournalHold; readonly reason: string }
  /** The schedule's stop rolls the rollout back. */
  | { readonly kind: 'stop'; readonly reason: string };

export interface HoldInput {
  readonly policy: RolloutPolicy;
  readonly steps: WaveSteps | undefined;
  readonly wave: number;
  readonly released: readonly number[];
  readonly stopReleased: boolean;
  readonly clock: RolloutClock;
  /** Whether to wait for the schedule's start (else the rollout is left waiting). */
  readonly wait: boolean;
  /** Told once when the run waits for the schedule's start. */
  onWait(until: string): void;
}

/** The reason of a stop at the schedule's `stop_by`. */
export function stopReason(stopBy: string | undefined, action: RolloutStopAction): string {
  return `the schedule's stopBy ${stopBy ?? ''} passed (atStop ${action})`;
}

/** Whether something holds the rollout before `wave`; waits out the schedule's start when told to. */
export async function holdBeforeWave(input: HoldInput): Promise<WaveHold | undefined> {
  const { policy, wave, clock } = input;
  const since = new Date(clock.now()).toISOString();
  if (input.steps?.pauseBefore && !input.released.includes(wave))
    return { kind: 'paused', hold: { kind: 'pause-step', wave, since }, reason: `a pause step holds it before wave ${wave}` };
  const schedule = policy.pacing?.schedule;
  let told = false;
  for (;;) {
    const now = clock.now();
    const v = scheduleVerdict(schedule, now, input.stopReleased);
    if (v.kind === 'write') return undefined;
    if (v.kind === 'stop') {
      const reason = stopReason(schedule?.stop_by, v.action);
      if (v.action === 'rollback') return { kind: 'stop', reason };
      return { kind: 'paused', hold: { kind: 'stop-by', wave, since }, reason };
    }
    const until = new Date(v.until).toISOString();
    if (!input.wait)
      return {
        kind: 'waiting',
        hold: { kind: 'not-before', wave, since, until },
        reason: `its schedule starts it at ${until}`,
      };
    if (!told) input.onWait(until);
    told = true;
    await clock.sleep(Math.min(v.until - now, LONGEST_WAIT_MS));
  }
}

/** The run's pacing state: when it wrote (the latest write sets the next one's time), how far the ramp went. */
export interface PaceState {
  readonly writes: number[];
  progress: RampProgress;
}

export interface PacedWrites<T, R> {
  readonly results: Map<string, R>;
  /** The targets written (the rest were not: the schedule's stop came first). */
  readonly written: readonly T[];
  /** Set when the schedule's stop cut the wave's writes short. */
  readonly cut?: { readonly action: RolloutStopAction; readonly reason: string };
}

/**
 * Writes a wave's targets: at once without a rate; else one at a time, each no sooner than
 * the rate allows after the one before had been written (so the service never sees two
 * writes closer than the spacing), and none once the schedule's stop passed (unless it lets
 * the wave finish).
 */
export async function writePaced<T extends { readonly address: string }, R>(
  targets: readonly T[],
  input: {
    readonly steps: WaveSteps | undefined;
    readonly policy: RolloutPolicy;
    readonly stopReleased: boolean;
    readonly clock: RolloutClock;
    readonly pace: PaceState;
  },
  write: (batch: readonly T[]) => Promise<ReadonlyMap<string, R>>,
): Promise<PacedWrites<T, R>> {
  const { clock, pace } = input;
  const schedule = input.policy.pacing?.schedule;
  const results = new Map<string, R>();
  const written: T[] = [];
  const rateNow = (): number | undefined => (input.steps ? waveRate(input.steps, pace.progress) : undefined);
  if (rateNow() === undefined) {
    for (const [k, v] of await write(targets)) results.set(k, v);
    pace.progress = { ...pace.progress, written: pace.progress.written + targets.length };
    return { results, written: [...targets] };
  }
  for (const target of targets) {
    const at = nextWriteAt(pace.writes, clock.now(), rateNow());
    if (at > clock.now()) await clock.sleep(at - clock.now());
    const v = scheduleVerdict(schedule, clock.now(), input.stopReleased);
    if (v.kind === 'stop' && v.action !== 'finish-wave')
      return { results, written, cut: { action: v.action, reason: stopReason(schedule?.stop_by, v.action) } };
    for (const [k, r] of await write([target])) results.set(k, r);
    pace.writes.splice(0, pace.writes.length, clock.now());
    pace.progress = { ...pace.progress, written: pace.progress.written + 1 };
    written.push(target);
  }
  return { results, written };
}
