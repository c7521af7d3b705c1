/**
 * The reconciler watching a fleet: `reconcile-run.ts SIZE [CHECKS]`. Sets up SIZE machines
 * on an emulator of its own (a child process): a few applied by fleetform, the rest copied
 * from the first of them into the emulator's store and the state (the figure is the
 * watching, not the first apply; the first full plan proves the copy by changing nothing),
 * then runs the reconciler in this process
 * (drift warn, the engine in-process as `fleetform reconcile` runs it) and measures, per
 * drift check (an interval's cycle with no change, its reads spread over half the
 * interval): this process's CPU seconds over the whole interval and the emulator's, apart;
 * the average cores that makes at a check every 60 s; a full plan of the same fleet (the
 * check a new commit or `heal` makes) for comparison; the peak memory; how long a drift
 * made on the service takes to be reported by the interval's check and the plan after it
 * (edited right after the check read that machine: the worst case; and the machine read
 * first) and how long that plan took; and from a new
 * revision to its apply starting and finishing (the app's synthesis excluded: a sizes row
 * measures it). Prints one JSON line.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { createServiceClient } from '../src/api/client';
import { readStacks } from '../src/engine/desired/read-stacks';
import { Engine } from '../src/engine/engine';
import { defaultKinds } from '../src/engine/kinds';
import { LocalStateBackend } from '../src/engine/state/local-backend';
import type { ReconcilerEvent } from '../src/reconciler/events';
import { boundHeapGrowth } from '../src/reconciler/heap-growth';
import { Reconciler } from '../src/reconciler/reconciler';
import type { ProjectSource } from '../src/reconciler/source';
import { spawnEmulator } from './emulator';
import { pollCosts } from './reconcile-poll';
import { cloneFleetMachines } from './reconcile-seed';
import { cpuSecondsSince, gcCounter, type GcTally, processCpuSeconds, r3, runMain } from './stats';

/** Machines applied through fleetform before the rest are copied. */
const APPLIED = 10;

/** The interval the cost is reported at. */
const INTERVAL_S = 60;

/**
 * Synthesizes the bench fleet in a process of its own, as `fleetform reconcile` runs the app:
 * what a synthesis in this process leaves live (about 160 MB at 10,000 machines) is never the
 * reconciler's heap, whose collections a check pays for.
 */
function synthInChild(outdir: string, size: number, revision = 0): void {
  execFileSync(process.execPath, ['--import', 'tsx', path.join(__dirname, 'synth-child.ts'), outdir, String(size), String(revision), '1'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function main(): Promise<void> {
  // As `fleetform reconcile` starts, so the checks' garbage collection is the one it runs with.
  boundHeapGrowth();
  const size = Number(process.argv[2] ?? '10000');
  const checks = Number(process.argv[3] ?? '3');
  // The bench's own interval is shorter than the 60 s it reports at: a check's CPU does not depend on it.
  const benchIntervalMs = Math.max(4000, size * 2);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-bench-reconcile-'));
  const outdir = path.join(dir, 'cdktf.out');
  const emulator = await spawnEmulator();
  const { apiKeyId, apiKey, organizationId, locationId } = emulator.credentials;
  const client = await createServiceClient({
    serviceHost: emulator.url,
    credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey },
  });
  const backend = new LocalStateBackend(path.join(dir, 'state'));
  const kinds = defaultKinds();
  const engine = new Engine({
    client,
    backend,
    kinds,
    parallelism: 10,
    readParallelism: 512,
    lockTimeoutMs: 10_000,
    defaults: { organizationId, locationId },
  });
  try {
    const applied = Math.min(size, APPLIED);
    process.stderr.write(`  applying ${applied} machines, copying them to ${size}...\n`);
    const setupStarted = Date.now();
    synthInChild(outdir, applied);
    // The fleet is made by an apply in a process of its own: this one's peak memory is the reconciler's.
    const session = path.join(dir, 'session.json');
    fs.writeFileSync(
      session,
      JSON.stringify({ url: emulator.url, credentials: emulator.credentials, stateDir: path.join(dir, 'state'), parallelism: 10 }),
    );
    execFileSync(process.execPath, ['--import', 'tsx', path.join(__dirname, 'engine-child.ts'), session, outdir], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    cloneFleetMachines(emulator.dataDir, path.join(dir, 'state'), applied, size);
    synthInChild(outdir, size);
    const setupS = (Date.now() - setupStarted) / 1000;
    let revision = 0;
    const source: ProjectSource = {
      description: outdir,
      fetch: () => Promise.resolve({ dir: outdir, id: `r${revision}` }),
      hasNew: (than) => Promise.resolve(than !== `r${revision}`),
    };
    const reconciler = new Reconciler({
      source,
      loader: {
        load: async () => ({
          stacks: await readStacks(outdir),
          engine,
          readers: { kinds },
          lead: () => Promise.resolve(async () => undefined),
        }),
        close: async () => undefined,
      },
      apply: 'auto',
      drift: 'warn',
      windows: [],
      intervalMs: benchIntervalMs,
      pollMs: 50,
      maxDestroy: 0,
      logger: { log: () => undefined },
    });
    const events: ReconcilerEvent[] = [];
    const waiters: Array<{ match: (e: ReconcilerEvent) => boolean; resolve: (e: ReconcilerEvent) => void }> = [];
    reconciler.subscribe((e) => {
      events.push(e);
      for (const w of [...waiters])
        if (w.match(e)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(e);
        }
    });
    const next = (match: (e: ReconcilerEvent) => boolean): Promise<ReconcilerEvent> =>
      new Promise((resolve) => waiters.push({ match, resolve }));

    const cycleEnd = (): Promise<ReconcilerEvent> => next((e) => e.type === 'cycle-finished' || e.type === 'cycle-failed');
    const first = cycleEnd();
    reconciler.start();
    await first;
    const firstApplies = events.filter((e) => e.type === 'apply-started').length;
    if (firstApplies > 0) throw new Error('the copied fleet differs from its code: the first full plan applied it');
    // A full plan (what the first cycle of a commit and `heal` make), for comparison.
    const fullCpu = process.cpuUsage();
    const fullEmu = processCpuSeconds(emulator.pid);
    const fullDone = cycleEnd();
    reconciler.healNow();
    const full = await fullDone;
    if (full.type !== 'cycle-finished') throw new Error(`full plan failed: ${JSON.stringify(full)}`);
    const fullPlan = {
      own_cpu_s: r3(cpuSecondsSince(fullCpu)),
      emulator_cpu_s: r3(processCpuSeconds(emulator.pid) - fullEmu),
      seconds: r3(full.seconds),
    };
    // With BENCH_RECONCILE_CPU_PROF=FILE, the checks (and only they) are profiled into FILE.
    const profile = process.env.BENCH_RECONCILE_CPU_PROF;
    const profiler = profile ? new Session() : undefined;
    if (profiler) {
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.start');
    }
    // Each interval's check, its CPU counted from the end of the cycle before (the waiting and polling included).
    const perCheck: Array<{ own_cpu_s: number; emulator_cpu_s: number; seconds: number; heap_used_mb: number; gc: GcTally }> = [];
    const gc = gcCounter();
    for (let i = 0; i < checks; i++) {
      gc.since();
      const heapUsedMb = Math.round(process.memoryUsage().heapUsed / 2 ** 20);
      const cpu = process.cpuUsage();
      const emu = processCpuSeconds(emulator.pid);
      const e = await cycleEnd();
      if (e.type !== 'cycle-finished') throw new Error(`drift check failed: ${JSON.stringify(e)}`);
      perCheck.push({
        own_cpu_s: r3(cpuSecondsSince(cpu)),
        emulator_cpu_s: r3(processCpuSeconds(emulator.pid) - emu),
        seconds: r3(e.seconds),
        heap_used_mb: heapUsedMb,
        gc: gc.since(),
      });
    }
    gc.stop();
    const checksLoad = os.loadavg()[0] ?? 0;
    // Between cycles the reconciler asks its source for a new commit every --poll (1 s by default), in this process beside the fleet's heap.
    const poll = await pollCosts();
    if (profiler && profile) {
      const { profile: taken } = await profiler.post('Profiler.stop');
      fs.writeFileSync(profile, JSON.stringify(taken));
      profiler.disconnect();
    }

    // A config edited on the service is reported by the next interval's check and the targeted
    // plan after it. When it is found depends on when the edit falls against the check's read of
    // that machine, so two edits, each right after a check ended: the machine the checks read
    // last (just read: the worst case, about an interval) and the one they read first.
    const order = Object.entries((await backend.read('fleet')).resources)
      .filter(([, e]) => e.type === 'fleetform_machine')
      .map(([address, e]) => ({ address, partId: e.ids.part_id ?? '' }))
      .sort((a, b) => a.address.localeCompare(b.address));
    const editReported = async (partId: string): Promise<{ reported_s: number; plan_s: number }> => {
      const checked = cycleEnd();
      if ((await checked).type !== 'cycle-finished') throw new Error('drift check failed');
      const part = await client.appClient.getMachinePart(partId);
      const found = next((e) => e.type === 'drift-found');
      const editedAt = Date.now();
      const components = (part.config.components ?? []) as Array<{ attributes?: Record<string, unknown> }>;
      const drifted = components.map((c, i) => (i === 0 ? { ...c, attributes: { ...c.attributes, edited_by_hand: true } } : c));
      await client.appClient.updateMachinePart(part.id, part.name, { ...part.config, components: drifted }, part.lastUpdated);
      await found;
      const reported = (Date.now() - editedAt) / 1000;
      const { stateS, planS } = engine.planStats();
      return { reported_s: r3(reported), plan_s: r3(stateS + planS) };
    };
    const lastRead = await editReported(order[order.length - 1]?.partId ?? '');
    const firstRead = await editReported(order[0]?.partId ?? '');

    // A new revision (one machine changed) starts an apply.
    synthInChild(outdir, size, 1);
    const started = next((e) => e.type === 'apply-started');
    const finished = next((e) => e.type === 'apply-finished');
    const at = Date.now();
    revision += 1;
    await started;
    const revisionToApplyS = (Date.now() - at) / 1000;
    await finished;
    const revisionAppliedS = (Date.now() - at) / 1000;
    await reconciler.stop();

    const own = perCheck.map((c) => c.own_cpu_s);
    const avgOwn = own.reduce((a, b) => a + b, 0) / own.length;
    const avgEmu = perCheck.map((c) => c.emulator_cpu_s).reduce((a, b) => a + b, 0) / perCheck.length;
    process.stdout.write(
      `${JSON.stringify({
        machines: size,
        setup_s: r3(setupS),
        interval_s: benchIntervalMs / 1000,
        checks: perCheck,
        full_plan: fullPlan,
        own_cpu_s_per_check: r3(avgOwn),
        emulator_cpu_s_per_check: r3(avgEmu),
        own_cores_at_60s: r3(avgOwn / INTERVAL_S),
        // A minute of polls for new commits at the default --poll: a repository on this machine, and one asked through git.
        poll_cpu_s_per_minute: { local_repository: poll.local_repository.cpu_s_per_minute, through_git: poll.through_git.cpu_s_per_minute },
        watching_cores_local_repository: r3((avgOwn + poll.local_repository.cpu_s_per_minute) / INTERVAL_S),
        // Other processes' load while the checks ran (the 1-minute load average after them) and the cores shared.
        load_average: r3(checksLoad),
        cpu_cores: os.cpus().length,
        peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
        // The worst case (the machine edited right after the check read it), then the best.
        drift_reported_s: lastRead.reported_s,
        drift_reported_first_read_s: firstRead.reported_s,
        // The plan that reported each (states read, then the machine): a targeted plan of one machine.
        drift_plan_s: [lastRead.plan_s, firstRead.plan_s],
        revision_to_apply_s: r3(revisionToApplyS),
        revision_applied_s: r3(revisionAppliedS),
      })}\n`,
    );
  } finally {
    await client.close();
    await emulator.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
