/**
 * Staged rollouts: which changed machines go in which wave, when a rollout stops, and what
 * "healthy" means for one machine's status. Pure rules: the runner feeds them statuses.
 *
 * Waves take machines from those not yet placed, in order:
 * - `machines`: the named machines (addresses) that change;
 * - `location`: the changed machines of that location;
 * - `count`: the next `count` machines;
 * - `fraction`: machines until that share of all changed machines has the change (rounded
 *   up, and at least one machine while any is left, so rounding never leaves a wave empty).
 * A wave that finds no machine is left out; machines no wave took go in a last wave.
 *
 * A rollout stops once more machines failed than `maxFailed`, or once the failed share of
 * the machines written so far is above `maxFailedFraction`. The first wave of a rollout of
 * several waves is its canary: the fleet-wide thresholds say what the fleet tolerates, not
 * what a handful of first machines may show, so any failure there stops the rollout unless
 * `canaryMaxFailed` tolerates it. A wave ends passed (with the failures the thresholds
 * tolerated, named) or, when every machine of it failed, failed. A machine passes its gate when
 * it is healthy and stays so for `settle`; it fails when it stays unhealthy for `settle`,
 * or is not healthy within `timeout` of its write.
 */
import { z } from 'zod';
import { parseGoDuration } from './duration';
import { RolloutPacingSchema } from './rollout-pacing';
import { AnalysisSchema } from './rollout-analysis';

/** The key of a stack document's comment block (`//`, which Terraform ignores) holding its rollout policy. */
export const ROLLOUT_DOCUMENT_KEY = 'fleetform_rollout';

/** The key of that block holding the rollouts of the stack's fragments, by rollout name. */
export const FRAGMENT_ROLLOUTS_DOCUMENT_KEY = 'fleetform_fragment_rollouts';

export const ROLLOUT_OFFLINE_POLICIES = ['wait', 'skip', 'fail'] as const;
export const ROLLOUT_FAILURE_POLICIES = ['rollback', 'halt'] as const;

/** One wave as synthesized: machine addresses, a location (address reference or id), a count or a cumulative fraction. */
export const RolloutWaveSchema = z.union([
  z.strictObject({ machines: z.array(z.string().min(1)).min(1) }),
  z.strictObject({ location: z.string().min(1) }),
  z.strictObject({ count: z.number().int().positive() }),
  z.strictObject({ fraction: z.number().gt(0).lte(1) }),
]);
export type RolloutWave = z.infer<typeof RolloutWaveSchema>;

/** A rollout policy as synthesized into a stack (durations in milliseconds). */
export const RolloutPolicySchema = z.strictObject({
  name: z.string().min(1),
  waves: z.array(RolloutWaveSchema).min(1),
  gate: z.strictObject({
    timeout_ms: z.number().int().positive(),
    settle_ms: z.number().int().nonnegative(),
    /** Jobs (by name) whose runs must succeed on the new config before the machine passes. */
    jobs_succeed: z.array(z.string().min(1)).min(1).optional(),
  }),
  abort: z.strictObject({
    max_failed: z.number().int().nonnegative().optional(),
    max_failed_fraction: z.number().gte(0).lte(1).optional(),
    /** Failures the first wave (the canary, when there are several waves) tolerates; none when unset. */
    canary_max_failed: z.number().int().nonnegative().optional(),
  }),
  offline: z.enum(ROLLOUT_OFFLINE_POLICIES),
  on_failure: z.enum(ROLLOUT_FAILURE_POLICIES),
  /** For a fragment's rollout: the fragment's address (`fleetform_fragment.<name>`); its revisions roll out, not machine configs. */
  fragment: z.string().min(1).optional(),
  /** Rates, pause steps, a schedule and where machines joining late go (see rollout-pacing). */
  pacing: RolloutPacingSchema.optional(),
  /** Metrics each wave must pass once its machines are healthy (see rollout-analysis). */
  analysis: z.array(AnalysisSchema).min(1).optional(),
});
export type RolloutPolicy = z.infer<typeof RolloutPolicySchema>;

/** Gate defaults: a machine has ten minutes to become healthy and must stay so for one. */
export const DEFAULT_GATE_TIMEOUT_MS = 600_000;
export const DEFAULT_GATE_SETTLE_MS = 60_000;

/** A changed machine as wave rules see it. */
export interface RolloutCandidate {
  readonly address: string;
  /** Its location as declared (a `${fleetform_location.x.id}` reference or an id) and as resolved; either may match a wave. */
  readonly locations: readonly string[];
}

export interface PlannedWave {
  /** How the wave chose its machines, e.g. `fraction 0.25`, `the rest`. */
  readonly rule: string;
  readonly machines: readonly string[];
  /** The index of the policy wave it came from; the machines no wave took come after them all. */
  readonly from: number;
}

/** A machine of a planned wave: its address and name. */
export interface RolloutWaveMachine {
  readonly address: string;
  readonly name: string;
  /** In a fragment's rollout: the version its import follows (`''` the latest revision, else a tag). */
  readonly follows?: string;
  /** Why its config's maintenance window can never hold the change (its sensor is not configured on it). */
  readonly maintenance?: string;
}

/**
 * What a fragment's rollout moves: the fragment, from the revision machines run to the one
 * its apply saves, and the tags that name the new revision once every wave is healthy.
 * The revisions are known at apply (the plan shows them as far as it knows them).
 */
export const FragmentRolloutTargetSchema = z.object({
  address: z.string(),
  name: z.string(),
  tags: z.array(z.object({ address: z.string(), tag: z.string() })),
  id: z.string().optional(),
  from_revision: z.string().optional(),
  to_revision: z.string().optional(),
  /** Machines importing it that no wave takes (pinned to a revision or another tag, or outside the stack), as the plan counted them. */
  unstaged: z.number().int().nonnegative().optional(),
});
export type FragmentRolloutTarget = z.infer<typeof FragmentRolloutTargetSchema>;

/** A stack's rollout as planned: the policy and its waves in order. */
export interface RolloutPlan {
  readonly stack: string;
  readonly policy: RolloutPolicy;
  readonly waves: ReadonlyArray<{ readonly rule: string; readonly machines: readonly RolloutWaveMachine[]; readonly from?: number }>;
  /** Set for a fragment's rollout: waves pin their machines to the fragment's new revision. */
  readonly fragment?: FragmentRolloutTarget;
  /** Set when an interrupted run of the rollout is resumed: the wave it goes on at, and when it started. */
  readonly resumes?: {
    readonly wave: number;
    readonly startedAt: string;
    /** Set when its pacing holds it there: a pause step or its schedule's stop (`paused`), or its schedule's start (`waiting`). */
    readonly held?: 'paused' | 'waiting';
  };
}

/** Where a rollout's journal is kept: the stack's rollout by the stack's name, a fragment's by the stack's and the rollout's. */
export function rolloutJournalKey(stack: string, policy: Pick<RolloutPolicy, 'name' | 'fragment'>): string {
  return policy.fragment === undefined ? stack : `${stack}~${policy.name}`;
}

/**
 * A fragment import's version with one fragment's imports set to `version` (`undefined`
 * follows the latest revision): a machine config's `fragments`, the others as they are.
 */
export function withFragmentVersion(
  config: Readonly<Record<string, unknown>>,
  fragmentId: string,
  version: string | undefined,
): Record<string, unknown> {
  const imports = config.fragments;
  if (!Array.isArray(imports)) return { ...config };
  const fragments = imports.map((raw: unknown) => {
    if (typeof raw === 'string') return raw === fragmentId && version !== undefined ? { id: raw, version } : raw;
    if (raw === null || typeof raw !== 'object' || (raw as { id?: unknown }).id !== fragmentId) return raw;
    const entry: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
    if (version === undefined) delete entry.version;
    else entry.version = version;
    return entry;
  });
  return { ...config, fragments };
}

/** The version a config imports a fragment at: `''` for the latest revision, undefined when it does not import it. */
export function importedVersion(config: Readonly<Record<string, unknown>>, fragmentId: string): string | undefined {
  const imports = config.fragments;
  if (!Array.isArray(imports)) return undefined;
  for (const raw of imports as unknown[]) {
    if (raw === fragmentId) return '';
    if (raw !== null && typeof raw === 'object' && (raw as { id?: unknown }).id === fragmentId) {
      const version = (raw as { version?: unknown }).version;
      return typeof version === 'string' ? version : '';
    }
  }
  return undefined;
}

/** A wave's rule in words. */
export function describeWave(wave: RolloutWave): string {
  if ('machines' in wave) return `machines ${wave.machines.join(', ')}`;
  if ('location' in wave) return `location ${wave.location}`;
  if ('count' in wave) return `count ${wave.count}`;
  return `fraction ${wave.fraction}`;
}

/** How many machines a fraction wave brings the total to: the share rounded up (float noise ignored). */
export function fractionTarget(fraction: number, total: number): number {
  return Math.min(total, Math.ceil(fraction * total - 1e-9));
}

/** Splits changed machines (in order) into non-empty waves; every machine lands in exactly one. */
export function splitWaves(candidates: readonly RolloutCandidate[], waves: readonly RolloutWave[]): PlannedWave[] {
  const total = candidates.length;
  let remaining = [...candidates];
  let placed = 0;
  const out: PlannedWave[] = [];
  const take = (chosen: readonly RolloutCandidate[], rule: string, from: number): void => {
    if (chosen.length === 0) return;
    const picked = new Set(chosen.map((c) => c.address));
    remaining = remaining.filter((c) => !picked.has(c.address));
    placed += chosen.length;
    out.push({ rule, machines: chosen.map((c) => c.address), from });
  };
  for (const [from, wave] of waves.entries()) {
    if (remaining.length === 0) break;
    const rule = describeWave(wave);
    if ('machines' in wave)
      take(
        remaining.filter((c) => wave.machines.includes(c.address)),
        rule,
        from,
      );
    else if ('location' in wave)
      take(
        remaining.filter((c) => c.locations.includes(wave.location)),
        rule,
        from,
      );
    else if ('count' in wave) take(remaining.slice(0, wave.count), rule, from);
    else take(remaining.slice(0, Math.max(1, fractionTarget(wave.fraction, total) - placed)), rule, from);
  }
  take(remaining, 'the rest', waves.length);
  return out;
}

/** `max_failed` as it applies: unset with no fraction either, no failure is tolerated. */
function maxFailedOf(abort: RolloutPolicy['abort']): number | undefined {
  return abort.max_failed ?? (abort.max_failed_fraction === undefined ? 0 : undefined);
}

/**
 * Why the rollout stops now, or undefined while it may go on. `canaryFailed` is given while
 * the canary wave runs (the first of several): its failures beyond `canary_max_failed`
 * (none by default) stop the rollout whatever the fleet-wide thresholds allow.
 */
export function abortReason(failed: number, written: number, abort: RolloutPolicy['abort'], canaryFailed?: number): string | undefined {
  if (failed === 0) return undefined;
  const maxFailed = maxFailedOf(abort);
  if (maxFailed !== undefined && failed > maxFailed) return `${failed} machine(s) failed, more than max_failed ${maxFailed}`;
  const share = written === 0 ? 1 : failed / written;
  if (abort.max_failed_fraction !== undefined && share > abort.max_failed_fraction) {
    return `${failed} of ${written} machine(s) written failed (${Math.round(share * 1000) / 10}%), more than max_failed_fraction ${abort.max_failed_fraction}`;
  }
  const canaryTolerates = abort.canary_max_failed ?? 0;
  if (canaryFailed !== undefined && canaryFailed > canaryTolerates) {
    return `${canaryFailed} machine(s) of the canary wave failed, more than canary_max_failed ${canaryTolerates} (max_failed and max_failed_fraction apply from the second wave)`;
  }
  return undefined;
}

/** The thresholds that let failures through, in words: `max_failed 1`, `max_failed_fraction 0.2`, or both. */
export function toleranceText(abort: RolloutPolicy['abort'], canary: boolean): string {
  if (canary) return `canary_max_failed ${abort.canary_max_failed ?? 0}`;
  const parts: string[] = [];
  const maxFailed = maxFailedOf(abort);
  if (maxFailed !== undefined) parts.push(`max_failed ${maxFailed}`);
  if (abort.max_failed_fraction !== undefined) parts.push(`max_failed_fraction ${abort.max_failed_fraction}`);
  return parts.join(', ');
}

/** How a wave the rollout went on from ended: its failures (tolerated by the thresholds) out of the machines it gated. */
export interface WaveVerdict {
  /** `passed`: some machine of it passed, or it had no failure; `failed`: every machine it gated failed. */
  readonly verdict: 'passed' | 'failed';
  readonly failed: number;
  /** The thresholds that tolerated the failures (`max_failed 1`), when any failed. */
  readonly tolerated?: string;
}

/** A wave's verdict once it ended without stopping the rollout: `gated` counts its machines written or failed (not the skipped). */
export function waveVerdict(failed: number, gated: number, abort: RolloutPolicy['abort'], canary: boolean): WaveVerdict {
  if (failed === 0) return { verdict: 'passed', failed };
  return { verdict: failed >= gated ? 'failed' : 'passed', failed, tolerated: toleranceText(abort, canary) };
}

/** `passed`, `passed with 1 failure tolerated (max_failed 1)`, or `FAILED on all 2 machine(s), tolerated (max_failed 5)`. */
export function waveEndText(v: WaveVerdict): string {
  if (v.failed === 0) return 'passed';
  if (v.verdict === 'failed') return `FAILED on all ${v.failed} machine(s), tolerated (${v.tolerated ?? ''}): the rollout goes on`;
  return `passed with ${v.failed} failure${v.failed === 1 ? '' : 's'} tolerated (${v.tolerated ?? ''})`;
}

/** One machine's status as the gate reads it (GetMachineStatus, with the names of its states). */
export interface MachineStatusReport {
  /** The config revision the machine ingested. */
  readonly revision: string;
  readonly state: 'initializing' | 'running' | 'unknown';
  readonly modules: readonly {
    readonly name: string;
    readonly state: string;
    readonly error: string;
    readonly consecutiveFailures: number;
  }[];
  readonly resources: readonly {
    readonly name: string;
    readonly api: string;
    readonly state: string;
    readonly revision: string;
    readonly error: string;
  }[];
  /** Packages the machine loads, when its status tells them. */
  readonly packages?: readonly {
    readonly name: string;
    readonly state: string;
    readonly error: string;
    readonly type?: string;
    readonly version?: string;
  }[];
  /** Since when (ms since the epoch, the machine's clock) nothing of it changed state: its newest `last_updated`. */
  readonly since?: number;
  /** When (ms, the machine's clock) it ingested the config revision it runs. */
  readonly ingestedAt?: number;
  /** Its scheduled jobs' recent runs (ms, the machine's clock), when its status tells them. */
  readonly jobs?: readonly JobRunsReport[];
}

/** A job's recent runs as a machine reports them: when each succeeded, when each failed. */
export interface JobRunsReport {
  readonly name: string;
  readonly succeededAt: readonly number[];
  readonly failedAt: readonly number[];
}

/** A job's newest run: whether it succeeded, when, and how many of the recent runs (both kinds) failed. */
export interface JobSummary {
  readonly name: string;
  readonly last?: { readonly ok: boolean; readonly at: number };
  readonly failed: number;
  readonly runs: number;
}

export function summarizeJob(job: JobRunsReport): JobSummary {
  const lastOk = Math.max(-Infinity, ...job.succeededAt);
  const lastFailed = Math.max(-Infinity, ...job.failedAt);
  const runs = job.succeededAt.length + job.failedAt.length;
  const base = { name: job.name, failed: job.failedAt.length, runs };
  if (runs === 0) return base;
  return { ...base, last: lastFailed > lastOk ? { ok: false, at: lastFailed } : { ok: true, at: lastOk } };
}

/**
 * A required job on a machine running the config it ingested at `ingestedAt`: unhealthy when
 * its newest run since then failed, pending while it has not succeeded since then, else
 * healthy since its first success after its last failure.
 */
function requiredJobVerdict(status: MachineStatusReport, name: string): HealthVerdict {
  const since = status.ingestedAt ?? 0;
  const job = status.jobs?.find((j) => j.name === name);
  if (!job) return { health: 'pending', why: `job ${name} is not among the machine's jobs` };
  const recent = summarizeJob({
    name,
    succeededAt: job.succeededAt.filter((t) => t >= since),
    failedAt: job.failedAt.filter((t) => t >= since),
  });
  if (!recent.last) return { health: 'pending', why: `job ${name} has not run on this config yet` };
  if (!recent.last.ok) {
    const error = `its last run failed (${recent.failed} of ${recent.runs} run(s) on this config failed)`;
    return { health: 'unhealthy', problems: [{ what: `job ${name}`, error }] };
  }
  const lastFailed = Math.max(since, ...job.failedAt);
  return { health: 'healthy', since: Math.min(...job.succeededAt.filter((t) => t >= lastFailed)) };
}

/** Something wrong on a machine: which module, resource or package, and its error. */
export interface MachineProblem {
  readonly what: string;
  readonly error: string;
}

export type HealthVerdict =
  | { readonly health: 'healthy'; readonly since?: number }
  | { readonly health: 'pending'; readonly why: string }
  | { readonly health: 'unhealthy'; readonly problems: readonly MachineProblem[] };

/**
 * Healthy: the machine ingested `revision`, runs, every module and resource is ready (the
 * resources at that revision), every package it tells of is loaded and each of `requiredJobs`
 * succeeded since the machine ingested it. Unhealthy: at that revision, a module, resource or
 * package failed, or a required job's newest run since failed. Pending otherwise (behind,
 * starting, a required job not run yet): a job never run never passes.
 */
export function judgeHealth(status: MachineStatusReport, revision: string, requiredJobs: readonly string[] = []): HealthVerdict {
  if (status.revision !== revision)
    return { health: 'pending', why: `runs config revision ${status.revision || 'none'}, not ${revision} yet` };
  const problems: MachineProblem[] = [
    ...status.modules
      .filter((m) => m.state === 'unhealthy')
      .map((m) => ({ what: `module ${m.name}`, error: m.error || `unhealthy (${m.consecutiveFailures} consecutive failures)` })),
    ...status.resources
      .filter((r) => r.state === 'unhealthy')
      .map((r) => ({ what: `resource ${r.name} (${r.api})`, error: r.error || 'unhealthy' })),
    ...(status.packages ?? [])
      .filter((p) => p.state === 'failed')
      .map((p) => ({ what: `package ${p.name}`, error: p.error || 'failed to load' })),
  ];
  if (problems.length > 0) return { health: 'unhealthy', problems };
  if (status.state !== 'running') return { health: 'pending', why: 'the machine is still starting' };
  const module = status.modules.find((m) => m.state !== 'ready');
  if (module) return { health: 'pending', why: `module ${module.name} is ${module.state}` };
  const resource = status.resources.find((r) => r.state !== 'ready' || r.revision !== revision);
  if (resource)
    return {
      health: 'pending',
      why: `resource ${resource.name} is ${resource.state === 'ready' ? 'ready at an older revision' : resource.state}`,
    };
  const pkg = (status.packages ?? []).find((p) => p.state !== 'ready');
  if (pkg) return { health: 'pending', why: `package ${pkg.name} is ${pkg.state}` };
  const jobs = requiredJobs.map((name) => requiredJobVerdict(status, name));
  const failedJobs = jobs.flatMap((v) => (v.health === 'unhealthy' ? v.problems : []));
  if (failedJobs.length > 0) return { health: 'unhealthy', problems: failedJobs };
  const pendingJob = jobs.find((v) => v.health === 'pending');
  if (pendingJob) return pendingJob;
  // Healthy from when the last of the required jobs succeeded (without a failure after).
  const sinces = [status.since, ...jobs.map((v) => (v.health === 'healthy' ? v.since : undefined))].filter((t) => t !== undefined);
  return sinces.length === 0 ? { health: 'healthy' } : { health: 'healthy', since: Math.max(...sinces) };
}

/** Where one machine's gate stands: since when its verdict has held. */
export interface GateTrack {
  readonly writtenAt: number;
  readonly verdict: HealthVerdict['health'] | 'unreachable';
  readonly since: number;
}

export type GateStep =
  | { readonly outcome: 'waiting'; readonly track: GateTrack }
  | { readonly outcome: 'passed'; readonly track: GateTrack }
  | { readonly outcome: 'failed'; readonly track: GateTrack; readonly why: string; readonly problems: readonly MachineProblem[] };

/**
 * The gate after one reading at `now`: passed once healthy for `settle`, failed once
 * unhealthy for `settle` or past `timeout`. A machine found healthy says since when
 * (`since`): settling counts from then, though never from before its write.
 */
export function stepGate(
  track: GateTrack,
  verdict: HealthVerdict | { readonly health: 'unreachable'; readonly why: string },
  now: number,
  gate: RolloutPolicy['gate'],
): GateStep {
  const healthySince =
    verdict.health === 'healthy' && verdict.since !== undefined ? Math.min(now, Math.max(track.writtenAt, verdict.since)) : now;
  const next: GateTrack = verdict.health === track.verdict ? track : { ...track, verdict: verdict.health, since: healthySince };
  const held = now - next.since;
  if (verdict.health === 'healthy' && held >= gate.settle_ms) return { outcome: 'passed', track: next };
  if (verdict.health === 'unhealthy' && held >= gate.settle_ms) {
    return { outcome: 'failed', track: next, why: `unhealthy for ${held} ms`, problems: verdict.problems };
  }
  if (now - track.writtenAt >= gate.timeout_ms) {
    const why = verdict.health === 'healthy' ? 'healthy' : verdict.health === 'unhealthy' ? 'unhealthy' : verdict.why;
    return {
      outcome: 'failed',
      track: next,
      why: `not healthy for ${gate.settle_ms} ms within ${gate.timeout_ms} ms (last: ${why})`,
      problems: verdict.health === 'unhealthy' ? verdict.problems : [],
    };
  }
  return { outcome: 'waiting', track: next };
}

/** A machine's own health gate (`health_gate`): the keys it takes. */
export const HEALTH_GATE_KEYS = ['timeout', 'settle'] as const;

/** Reads a `health_gate` map (`timeout`, `settle` as Go durations) into a gate; the problems name the key. */
export function parseHealthGate(raw: Readonly<Record<string, string>>): {
  gate?: RolloutPolicy['gate'];
  problems: { key: string; message: string }[];
} {
  const problems: { key: string; message: string }[] = [];
  for (const key of Object.keys(raw)) {
    if (!(HEALTH_GATE_KEYS as readonly string[]).includes(key))
      problems.push({ key, message: `unknown key ${JSON.stringify(key)}: a health gate takes ${HEALTH_GATE_KEYS.join(' and ')}` });
  }
  const read = (key: 'timeout' | 'settle', fallback: number): number => {
    const text = raw[key];
    if (text === undefined) return fallback;
    const ms = parseGoDuration(text);
    if (ms === undefined || ms < 0) {
      problems.push({ key, message: `${JSON.stringify(text)} is not a duration (write it like 10m, 1m30s or 500ms)` });
      return fallback;
    }
    return Math.round(ms);
  };
  const timeout_ms = read('timeout', DEFAULT_GATE_TIMEOUT_MS);
  const settle_ms = read('settle', 0);
  if (timeout_ms === 0) problems.push({ key: 'timeout', message: 'the timeout must be above zero' });
  return problems.length > 0 ? { problems } : { gate: { timeout_ms, settle_ms }, problems };
}
