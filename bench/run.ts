/**
 * `npm run bench [-- --quick] [-- --sizes 100,1000] [-- --parallelism N] [-- --only state,cli]`:
 * measures each fleet size in its own process, the same at a distance, the PostgreSQL state
 * backend against local files, the example plan as a command, training-job listing in a
 * 100,000-job organization, hostile requests, 1,000 simulated machines, a staged rollout to
 * them, the adoption of an organization, a fleet on fragments against the same fleet
 * inline, the reconciler watching a fleet (and its peak memory over full plans of 1,000 and
 * 10,000 machines) and the dashboard's fleet page with 10,000 machines
 * in Chromium; prints the tables and writes bench/results.json, then compares the run's ratios
 * with bench/baseline.json (`--check`: exit 1 on a worse one; `--update-baseline`: record them).
 */
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createServiceClient } from '../src/api/client';
import { readBaseline, updatedBaseline, writeBaseline, type Measured } from './baseline';
import { spawnEmulator } from './emulator';
import { measureHostile } from './hostile';
import { insertJobs, measureListJobs } from './jobs';
import { compareResults, formatComparisons, worse } from './ratios';
import { r3, timed } from './stats';
import { formatDetails, formatLarge, formatLatency, formatStateBackends, formatTable, type Row } from './table';

const JOBS = 100_000;
/** Sizes above it are measured by large-run.ts: a plan of a fleet copied in the emulator, without synth, applies or the SDK. */
const LARGEST_SYNTHESIZED = 10_000;

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}

/** Runs a bench script in a process of its own and parses the JSON line it ends with. */
function runChild<T>(script: string, args: readonly string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, script), ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`${script} ${args.join(' ')} failed (exit ${code})`));
      resolve(JSON.parse(out.trim().split('\n').pop() as string) as T);
    });
  });
}

function runSize(size: number, extra: readonly string[]): Promise<{ row: Row; details: Record<string, unknown> }> {
  return runChild('size-run.ts', [String(size), ...extra]);
}

async function listJobs(runs: number): Promise<Record<string, unknown>> {
  const emu = await spawnEmulator();
  const { apiKeyId, apiKey, organizationId, datasetId } = emu.credentials;
  const client = await createServiceClient({
    serviceHost: emu.url,
    credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey },
  });
  try {
    const insertS = await timed(() => insertJobs(emu.dataDir, organizationId, datasetId, JOBS));
    return { jobs: JOBS, insert_s: r3(insertS), runs, by_status: await measureListJobs(client, organizationId, runs) };
  } finally {
    client.close();
    await emu.stop();
  }
}

/** The parts of a run, in the order they run; `--only` picks some of them. */
const SECTIONS = [
  'sizes',
  'latency',
  'state',
  'provider',
  'cli',
  'jobs',
  'hostile',
  'sim',
  'sim-full',
  'rollout',
  'rollout_analysis',
  'adopt',
  'fragments',
  'reconcile',
  'reconcile-commit',
  'reconcile-memory',
  'dashboard',
] as const;
type Section = (typeof SECTIONS)[number];

function chosenSections(): Set<Section> {
  const only = option('--only');
  if (!only) return new Set(SECTIONS);
  const names = only.split(',').map((n) => n.trim());
  const unknown = names.filter((n) => !(SECTIONS as readonly string[]).includes(n));
  if (unknown.length > 0) throw new Error(`--only: unknown part ${unknown.join(', ')}; parts: ${SECTIONS.join(', ')}`);
  return new Set(names as Section[]);
}

/** The results of an earlier run, which a run of some parts only (`--only`) updates. */
function previousResults(file: string): Record<string, unknown> {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const parts = chosenSections();
  const sizes = (option('--sizes') ?? (quick ? '100,1000' : '100,1000,10000')).split(',').map(Number);
  const extra = [
    ...(option('--parallelism') ? ['--parallelism', option('--parallelism') as string] : []),
    ...(option('--runs') ? ['--runs', option('--runs') as string] : []),
    ...(quick ? ['--quick'] : []),
  ];
  const results: Record<string, unknown> = {};
  if (parts.has('sizes')) {
    const rows: Row[] = [];
    const details: Record<string, unknown>[] = [];
    const large: Record<string, unknown>[] = [];
    for (const size of sizes) {
      if (size > LARGEST_SYNTHESIZED || process.argv.includes('--large')) {
        process.stderr.write(`measuring a no-change plan of ${size} machines (copied in the emulator, not applied one by one)...\n`);
        large.push(
          await runChild<Record<string, unknown>>('large-run.ts', [
            String(size),
            ...(option('--heap') ? ['--heap', option('--heap') as string] : []),
          ]),
        );
        continue;
      }
      process.stderr.write(`measuring ${size} machines...\n`);
      const runs = option('--runs') ?? (quick ? (size >= 1000 ? '2' : '3') : undefined);
      const r = await runSize(size, [...extra, ...(runs && !option('--runs') ? ['--runs', runs] : [])]);
      rows.push(r.row);
      details.push(r.details);
    }
    if (rows.length > 0) {
      Object.assign(results, { rows, details });
      process.stdout.write(`${formatTable(rows)}\n\n${formatDetails(details)}\n\n`);
    }
    if (large.length > 0) {
      results.large = large;
      process.stdout.write(`large fleets, a no-change plan in a process of its own:\n${formatLarge(large)}\n\n`);
    }
  }
  if (parts.has('latency')) {
    const latency: Record<string, unknown>[] = [];
    for (const size of sizes) {
      process.stderr.write(`measuring ${size} machines at a distance...\n`);
      latency.push(
        ...(await runChild<Record<string, unknown>[]>('latency-run.ts', [
          String(size),
          ...(option('--parallelism') ? ['--parallelism', option('--parallelism') as string] : []),
        ])),
      );
    }
    results.latency = latency;
    process.stdout.write(
      `at a distance (plan reads start at 128 in flight and follow the network up to 512; writes at the engine's parallelism; goal: 1.3x the plan on loopback plus 4 round trips):\n${formatLatency(latency)}\n\n`,
    );
  }
  if (parts.has('state')) {
    const size = option('--state-size') ?? '1000';
    process.stderr.write(`comparing the PostgreSQL state backend with local files on ${size} machines...\n`);
    const runs = option('--runs') ?? (quick ? '3' : '5');
    const state_backends = await runChild<Record<string, unknown>>('state-backends.ts', [
      size,
      '--runs',
      runs,
      ...(option('--parallelism') ? ['--parallelism', option('--parallelism') as string] : []),
    ]);
    results.state_backends = state_backends;
    process.stdout.write(
      `state backends (PostgreSQL on 127.0.0.1 with fsync, against local files; median of ${runs}):\n${formatStateBackends(state_backends)}\n\n`,
    );
  }
  if (parts.has('provider')) {
    const size = option('--provider-size') ?? (quick ? '100' : '1000');
    const runs = option('--runs') ?? (quick ? '2' : '3');
    process.stderr.write(`planning ${size} machines with terraform through the provider and with fleetform...\n`);
    const provider = await runChild<Record<string, unknown>>('provider-run.ts', [size, '--runs', runs]);
    results.provider = provider;
    process.stdout.write(
      `terraform plan through the provider against fleetform plan, ${String(provider.size)} machines, no changes (median of ${runs}): ` +
        `${String(provider.terraform_plan_s)} s against ${String(provider.fleetform_plan_s)} s = ${String(provider.terraform_to_fleetform)}x ` +
        `(the applies that made the fleets: ${String(provider.terraform_apply_s)} s and ${String(provider.fleetform_apply_s)} s)\n\n`,
    );
  }
  if (parts.has('cli')) {
    process.stderr.write('timing the example plan as a command...\n');
    const cli = await runChild<Record<string, unknown>>('cli-run.ts', ['--runs', quick ? '5' : '9']);
    results.cli = cli;
    process.stdout.write(
      `example plan with no changes: ${String(cli.example_plan_s)} s (bare node start ${String(cli.node_start_s)} s); phases ${JSON.stringify(cli.phases)}\n\n`,
    );
  }
  if (parts.has('jobs')) {
    process.stderr.write(`listing training jobs among ${JOBS}...\n`);
    const list_jobs = await listJobs(quick ? 1 : 3);
    results.list_jobs = list_jobs;
    process.stdout.write(`list training jobs (${JOBS} in the organization, median of ${String(list_jobs.runs)}):\n`);
    for (const [status, v] of Object.entries(list_jobs.by_status as Record<string, { seconds: number; jobs: number }>)) {
      process.stdout.write(`  ${status.padEnd(28)} ${String(v.jobs).padStart(6)} jobs  ${v.seconds.toFixed(3)} s\n`);
    }
    process.stdout.write('\n');
  }
  if (parts.has('hostile')) {
    process.stderr.write('sending hostile requests to the emulator...\n');
    const hostile = await measureHostile();
    results.hostile = hostile;
    process.stdout.write(`hostile requests (refusal time, emulator peak memory): ${JSON.stringify(hostile)}\n\n`);
  }
  if (parts.has('sim')) {
    const machines = option('--sim-machines') ?? '1000';
    process.stderr.write(`running ${machines} simulated machines checking in every second...\n`);
    const sim = await runChild<Record<string, unknown>>('sim-run.ts', [machines, '1000', quick ? '10' : '20']);
    results.emulator_sim = { machines: sim.machines, cpu_cores: sim.cpu_cores, peak_mb: sim.peak_mb };
    process.stdout.write(
      `simulated machines: ${String(sim.machines)} checking in every ${String(sim.check_in_interval_ms)} ms cost the emulator ` +
        `${String(sim.cpu_cores)} cores over ${String(sim.measured_s)} s, peak ${String(sim.peak_mb)} MB (targets: under 1 core, under 300 MB)\n\n`,
    );
  }
  if (parts.has('sim-full')) {
    const machines = option('--sim-machines') ?? '1000';
    process.stderr.write(
      `running ${machines} simulated machines with builtins, a remote each, a maintenance sensor and a job, checking in every second...\n`,
    );
    const sim = await runChild<Record<string, unknown>>('sim-run.ts', [machines, '1000', quick ? '10' : '20', 'full']);
    results.emulator_sim_full = { machines: sim.machines, cpu_cores: sim.cpu_cores, peak_mb: sim.peak_mb };
    process.stdout.write(
      `simulated machines running the whole config: ${String(sim.machines)} checking in every ${String(sim.check_in_interval_ms)} ms cost the emulator ` +
        `${String(sim.cpu_cores)} cores over ${String(sim.measured_s)} s, peak ${String(sim.peak_mb)} MB (targets: under 1 core, under 300 MB)\n\n`,
    );
  }
  if (parts.has('rollout')) {
    const machines = option('--rollout-machines') ?? '1000';
    process.stderr.write(`rolling a change out to ${machines} simulated machines in 4 waves...\n`);
    const rollout = await runChild<Record<string, unknown>>('rollout-run.ts', [machines, option('--parallelism') ?? '10']);
    results.rollout = {
      machines: rollout.machines,
      waves: rollout.waves,
      seconds: rollout.seconds,
      bound_s: rollout.bound_s,
      ratio: rollout.ratio,
    };
    process.stdout.write(
      `staged rollout: ${String(rollout.machines)} machines in ${String(rollout.waves)} waves took ${String(rollout.seconds)} s against a bound of ${String(rollout.bound_s)} s ` +
        `(each wave's writes at --parallelism plus its gate: slowest machine healthy, then settle) = ${String(rollout.ratio)}x (goal: within 1.2x); per wave ${JSON.stringify(rollout.per_wave)}\n\n`,
    );
  }
  if (parts.has('rollout_analysis')) {
    const machines = option('--rollout-machines') ?? '1000';
    process.stderr.write(`rolling a change out to ${machines} capturing machines in 4 waves, each analyzed...\n`);
    const analysis = await runChild<Record<string, unknown>>('rollout-analysis-run.ts', [machines, option('--parallelism') ?? '10']);
    results.rollout_analysis = {
      machines: analysis.machines,
      waves: analysis.waves,
      seconds: analysis.seconds,
      bound_s: analysis.bound_s,
      ratio: analysis.ratio,
      measurement_cpu_s: analysis.measurement_cpu_s,
    };
    process.stdout.write(
      `analyzed rollout: ${String(analysis.machines)} machines in ${String(analysis.waves)} waves with a log rate and a captured reading against the baseline took ${String(analysis.seconds)} s ` +
        `against a bound of ${String(analysis.bound_s)} s (writes, gate and measurement windows) = ${String(analysis.ratio)}x (goal: within 1.2x); ` +
        `one measurement of the reading on all ${String(analysis.machines)} machines: ${String(analysis.measurement_cpu_s)} CPU s (goal: under 1); per wave ${JSON.stringify(analysis.per_wave)}\n\n`,
    );
  }
  if (parts.has('adopt')) {
    const machines = option('--adopt-machines') ?? (quick ? '1000' : '10000');
    process.stderr.write(`adopting an organization of ${machines} machines...\n`);
    const adopt = await runChild<Record<string, unknown>>('adopt-run.ts', [machines]);
    results.adopt = { machines: adopt.machines, seconds: adopt.seconds, peak_mb: adopt.peak_mb };
    process.stdout.write(
      `fleetform adopt of ${String(adopt.machines)} machines on loopback, from an empty folder to code and state: ${String(adopt.seconds)} s, ` +
        `peak ${String(adopt.peak_mb)} MB (goal: 10,000 in under a minute); the plan after it: ${String(adopt.plan_after_s)} s, no changes; phases ${JSON.stringify(adopt.phases)}\n\n`,
    );
  }
  if (parts.has('fragments')) {
    const machines = option('--fragments-machines') ?? (quick ? '1000' : '10000');
    process.stderr.write(`planning ${machines} machines importing 10 fragments against the same fleet inline...\n`);
    const fragments = await runChild<Record<string, unknown>>('fragments-run.ts', [
      machines,
      '--runs',
      option('--runs') ?? '3',
      ...(option('--parallelism') ? ['--parallelism', option('--parallelism') as string] : []),
    ]);
    results.fragments = { size: fragments.size, plan_s: fragments.plan_s, plain_plan_s: fragments.plain_plan_s, ratio: fragments.ratio };
    process.stdout.write(
      `fragments: a no-change plan of ${String(fragments.size)} machines importing ${String(fragments.fragments)} fragments took ${String(fragments.plan_s)} s against ` +
        `${String(fragments.plain_plan_s)} s for the same fleet inline = ${String(fragments.ratio)}x (goal: within 1.2x); fragment reads per plan ${JSON.stringify(fragments.fragment_reads_per_plan)} (one per fragment)\n\n`,
    );
  }
  if (parts.has('reconcile')) {
    const machines = option('--reconcile-machines') ?? (quick ? '1000' : '10000');
    process.stderr.write(`watching ${machines} machines with the reconciler...\n`);
    const reconcile = await runChild<Record<string, unknown>>('reconcile-run.ts', [machines, quick ? '2' : '5']);
    results.reconcile = reconcile;
    process.stdout.write(
      `reconcile: watching ${String(reconcile.machines)} machines (set up in ${String(reconcile.setup_s)} s), a drift check costs the reconciler ${String(reconcile.own_cpu_s_per_check)} CPU-s ` +
        `(${String(reconcile.own_cores_at_60s)} cores at one check a minute; goal under 0.05) and the emulator ${String(reconcile.emulator_cpu_s_per_check)} CPU-s; ` +
        `a full plan ${String((reconcile.full_plan as { own_cpu_s?: number } | undefined)?.own_cpu_s)} CPU-s; ` +
        `peak ${String(reconcile.peak_rss_mb)} MB (goal under 600); a drift reported ${String(reconcile.drift_reported_s)} s after the edit at worst, ${String(reconcile.drift_reported_first_read_s)} s at best (interval ${String(reconcile.interval_s)} s; its plans took ${JSON.stringify(reconcile.drift_plan_s)} s); ` +
        `a new revision's apply started after ${String(reconcile.revision_to_apply_s)} s (goal under 5; synthesis excluded), finished after ${String(reconcile.revision_applied_s)} s; ` +
        `a minute of polls for new commits ${JSON.stringify(reconcile.poll_cpu_s_per_minute)} CPU-s (load average ${String(reconcile.load_average)})\n\n`,
    );
  }
  if (parts.has('reconcile-commit')) {
    const machines = option('--reconcile-commit-machines') ?? (quick ? '100' : '300');
    process.stderr.write(`from a commit to its first wave's write, ${machines} machines...\n`);
    const commit = await runChild<Record<string, unknown>>('reconcile-commit.ts', [machines, quick ? '2' : '3']);
    results.reconcile_commit = commit;
    process.stderr.write(
      `reconcile: a commit's first wave written ${String(commit.reconcile_commit_to_wave_ms)} ms after the commit ` +
        `(median; goal under 5000 plus the rollout's own waits; ${String(commit.machines)} machines, poll ${String(commit.poll)}, ` +
        `load average ${String(commit.load_average)} on ${String(commit.cpu_cores)} cores)\n\n`,
    );
  }
  if (parts.has('reconcile-memory')) {
    const sizes = quick ? ['1000'] : ['1000', '10000'];
    const rows: Array<Record<string, unknown>> = [];
    for (const machines of sizes) {
      process.stderr.write(`the reconciler's peak memory over full plans of ${machines} machines...\n`);
      const row = await runChild<Record<string, unknown>>('reconcile-memory-run.ts', [machines]);
      rows.push(row);
      process.stdout.write(
        `reconcile_memory: ${String(row.machines)} machines, two full plans (${JSON.stringify(row.seconds)} s) peak at ${String(row.peak_rss_mb)} MB ` +
          `(goal under 600 at 10,000; ${String(row.heap_used_mb)} MB of heap in use after them)\n`,
      );
    }
    results.reconcile_memory = rows;
    process.stdout.write('\n');
  }
  if (parts.has('dashboard')) {
    const machines = option('--dashboard-machines') ?? '10000';
    process.stderr.write(`the dashboard's fleet page with ${machines} machines in Chromium...\n`);
    const dashboard = await runChild<Record<string, unknown>>('dashboard-run.ts', [machines]);
    results.dashboard = dashboard;
    process.stdout.write(
      `dashboard: ${String(dashboard.machines)} machines drawn ${String(dashboard.first_render_ms)} ms after navigation (goal: under 1000 ms; ${String(dashboard.rows_drawn)} rows in view drawn); ` +
        `${String(dashboard.update_machines)} machines changed shown in ${String(dashboard.update_ms)} ms, longest task ${String(dashboard.update_longest_task_ms)} ms; ` +
        `last row in ${String(dashboard.scroll_to_last_ms)} ms (load average ${String(dashboard.load_average)} on ${String(dashboard.cpu_cores)} cores)\n\n`,
    );
  }
  const file = path.join(__dirname, 'results.json');
  // A run of some parts keeps the other parts' figures from the last run.
  const merged = parts.size === SECTIONS.length ? results : { ...previousResults(file), ...results };
  fs.writeFileSync(file, `${JSON.stringify(merged, null, 2)}\n`);
  process.stdout.write(`written ${path.relative(process.cwd(), file)}\n`);
  guardRatios(results);
}

/** This moment of this checkout and machine, as the baseline records it. */
function measuredNow(): Measured {
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: __dirname, encoding: 'utf8' }).trim();
  return {
    date: new Date().toISOString().slice(0, 16).replace('T', ' '),
    commit,
    load_average: os.loadavg().map((x) => Math.round(x * 100) / 100),
    cpu_cores: os.availableParallelism(),
  };
}

/**
 * Compares this run's ratios with bench/baseline.json and prints each that moved by more than
 * a tenth; `--update-baseline` then writes this run's parts into it, `--check` exits 1 when one
 * is worse.
 */
function guardRatios(results: Readonly<Record<string, unknown>>): void {
  const baseline = readBaseline();
  const comparisons = compareResults(baseline.results, results);
  process.stdout.write(`${formatComparisons(comparisons)}\n`);
  if (process.argv.includes('--update-baseline')) {
    writeBaseline(updatedBaseline(baseline, results, measuredNow()));
    process.stdout.write('bench/baseline.json updated with the parts of this run (npm run bench:docs writes the tables from it)\n');
  } else if (process.argv.includes('--check') && worse(comparisons).length > 0) {
    process.stdout.write(`${worse(comparisons).length} ratio(s) worse than bench/baseline.json by more than a tenth\n`);
    process.exitCode = 1;
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
