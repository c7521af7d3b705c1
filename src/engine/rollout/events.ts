/** What a rollout reports while it runs, and what it comes to. */
import { waveEndText, type MachineProblem, type WaveVerdict } from '../../domain/rollout';
import { formatValue, type Measurement } from '../../domain/rollout-analysis';
import type { AnalysisEvent } from '../health/wave-analysis';

export type MachineResult = 'healthy' | 'failed' | 'skipped' | 'stopped' | 'not reached';

/** One machine of a wave: what became of it, and why when it did not pass. */
export interface MachineOutcome {
  readonly machine: string;
  readonly address: string;
  result: MachineResult;
  why?: string;
  problems?: readonly MachineProblem[];
  /** The newest error lines of its log when it failed. */
  log?: readonly string[];
  /** Whether it went back to the config it had, when the rollout rolled back. */
  rollback?: { readonly ok: boolean; readonly detail: string };
}

export interface WaveOutcome {
  readonly rule: string;
  readonly machines: MachineOutcome[];
  /** Seconds from its first write to its last machine passing (or the stop). */
  seconds?: number;
  /** How it ended when the rollout went on from it: passed, or failed on every machine, with the failures tolerated. */
  verdict?: WaveVerdict;
  /** Its analyses, when the policy has any and its machines passed their gate. */
  analysis?: WaveAnalysisReport;
}

/** A wave's analyses: how they ended, and each one's measurements. */
export interface WaveAnalysisReport {
  readonly decision: 'passed' | 'failed' | 'inconclusive';
  readonly why: string;
  readonly analyses: readonly { readonly name: string; readonly decision: string; readonly measurements: readonly Measurement[] }[];
}

export interface RolloutOutcome {
  readonly stack: string;
  readonly name: string;
  /**
   * `completed`: every wave passed; `stopped`: past the abort threshold (rolled back or
   * halted); `paused`: held at a wave boundary by its caller (journaled as running, so the
   * next apply resumes at that wave).
   */
  outcome: 'completed' | 'stopped' | 'paused';
  reason?: string;
  /** The wave it stopped in, or paused before (1-based). */
  stoppedAt?: number;
  /** Set when its pacing holds it (a pause step, its schedule): its reason says how it goes on. */
  held?: boolean;
  readonly onFailure: 'rollback' | 'halt';
  readonly waves: WaveOutcome[];
  seconds: number;
  /** A fragment's rollout: the revisions, and whether its tags moved and its pins were lifted. */
  fragment?: {
    readonly name: string;
    readonly id: string;
    readonly from_revision: string;
    readonly to_revision: string;
    readonly tags: readonly string[];
    tags_moved: boolean;
    pins_lifted: boolean;
  };
}

export type RolloutEvent =
  | {
      readonly type: 'wave';
      readonly rollout: string;
      readonly wave: number;
      readonly waves: number;
      readonly rule: string;
      readonly machines: readonly string[];
    }
  | { readonly type: 'resumed'; readonly rollout: string; readonly wave: number; readonly machines: number }
  | { readonly type: 'written'; readonly rollout: string; readonly wave: number; readonly machines: number; readonly seconds: number }
  | { readonly type: 'healthy'; readonly rollout: string; readonly wave: number; readonly machine: string; readonly seconds: number }
  | { readonly type: 'skipped'; readonly rollout: string; readonly wave: number; readonly machine: string; readonly why: string }
  /** A machine whose maintenance window holds the written config: the wave waits for it, up to the gate's timeout. */
  | { readonly type: 'held'; readonly rollout: string; readonly wave: number; readonly machine: string; readonly why: string }
  | {
      readonly type: 'failed';
      readonly rollout: string;
      readonly wave: number;
      readonly machine: string;
      readonly why: string;
      readonly problems: readonly MachineProblem[];
      readonly log: readonly string[];
    }
  | ({ readonly type: 'wave-ended'; readonly rollout: string; readonly wave: number; readonly seconds: number } & WaveVerdict)
  | {
      readonly type: 'stopping';
      readonly rollout: string;
      readonly wave: number;
      readonly reason: string;
      readonly then: 'rollback' | 'halt';
    }
  | { readonly type: 'rolled-back'; readonly rollout: string; readonly machine: string; readonly ok: boolean; readonly detail: string }
  | { readonly type: 'fragment'; readonly rollout: string; readonly detail: string }
  /** Held before (or in) a wave; `held`: by its pacing (a pause step, its schedule), whose reason says how it goes on. */
  | { readonly type: 'paused'; readonly rollout: string; readonly wave: number; readonly reason: string; readonly held?: boolean }
  /** A machine that joined the rollout while it ran, and the wave it went in. */
  | { readonly type: 'joined'; readonly rollout: string; readonly wave: number; readonly machine: string }
  /** What the rollout's pacing does now (waiting for its schedule's start). */
  | { readonly type: 'pacing'; readonly rollout: string; readonly wave: number; readonly detail: string }
  | AnalysisEvent
  | { readonly type: 'done'; readonly rollout: string; readonly outcome: RolloutOutcome };

/**
 * Asked before each wave of a running rollout (`machines`: the wave's addresses; `first`: the
 * first wave of this run, which its caller has just let start): a reason holds it there
 * (paused, resumed by a later apply).
 */
export type WaveBoundary = (next: {
  readonly stack: string;
  readonly rollout: string;
  readonly wave: number;
  readonly machines: readonly string[];
  readonly first: boolean;
}) => string | undefined;

export type RolloutEvents = (event: RolloutEvent) => void;

/** One line of an event, for a log or a terminal without cursor control. */
export function eventLine(e: RolloutEvent): string {
  const head = `rollout ${e.rollout}:`;
  switch (e.type) {
    case 'wave':
      return `${head} wave ${e.wave}/${e.waves} (${e.rule}): ${e.machines.length} machine(s): ${e.machines.join(', ')}`;
    case 'resumed':
      return `${head} resuming wave ${e.wave}: ${e.machines} machine(s) written before the interruption are gated again`;
    case 'written':
      return `${head} wave ${e.wave}: ${e.machines} config(s) written in ${e.seconds.toFixed(1)}s; waiting for health`;
    case 'healthy':
      return `${head} wave ${e.wave}: ${e.machine} healthy after ${e.seconds.toFixed(1)}s`;
    case 'skipped':
      return `${head} wave ${e.wave}: ${e.machine} skipped: ${e.why}`;
    case 'held':
      return `${head} wave ${e.wave}: ${e.machine} waiting: ${e.why}; the wave waits for its window to open, up to the gate's timeout`;
    case 'failed': {
      const what = e.problems.map((p) => `${p.what}: ${p.error}`).join('; ');
      return `${head} wave ${e.wave}: ${e.machine} FAILED: ${e.why}${what ? `; ${what}` : ''}${e.log[0] ? `; log: ${e.log[0]}` : ''}`;
    }
    case 'wave-ended':
      return `${head} wave ${e.wave} ${waveEndText(e)} in ${e.seconds.toFixed(1)}s`;
    case 'stopping':
      return `${head} stopping in wave ${e.wave}: ${e.reason}; ${e.then === 'rollback' ? 'rolling the changed machines back' : 'leaving the changed machines as they are'}`;
    case 'rolled-back':
      return `${head} ${e.machine} ${e.ok ? 'rolled back' : 'NOT rolled back'}: ${e.detail}`;
    case 'fragment':
      return `${head} ${e.detail}`;
    case 'paused':
      return e.held
        ? `${head} paused at wave ${e.wave}: ${e.reason}`
        : `${head} paused before wave ${e.wave}: ${e.reason}; the next apply resumes there`;
    case 'joined':
      return `${head} ${e.machine} joined while the rollout runs: it goes in wave ${e.wave}`;
    case 'pacing':
      return `${head} ${e.detail}`;
    case 'analyzing':
      return `${head} wave ${e.wave}: healthy; analysis ${e.analyses.join(', ')} running`;
    case 'measurement':
      return `${head} wave ${e.wave}: analysis ${e.analysis} measured ${formatValue(e.measurement.value)}${e.measurement.baseline === undefined ? '' : ` (baseline ${formatValue(e.measurement.baseline)})`}: ${e.measurement.result.toUpperCase()}: ${e.measurement.why}`;
    case 'analysis':
      return `${head} wave ${e.wave}: ${e.why}`;
    case 'done':
      if (e.outcome.outcome === 'completed')
        return `${head} completed: ${e.outcome.waves.length} wave(s) in ${e.outcome.seconds.toFixed(1)}s`;
      return `${head} ${e.outcome.outcome} ${e.outcome.outcome === 'paused' ? 'before' : 'in'} wave ${e.outcome.stoppedAt ?? '?'}: ${e.outcome.reason ?? ''}`;
  }
}
