/**
 * `fragments-run.ts SIZE [--runs N] [--parallelism N] [--profile DIR]`: what fragments cost a plan. One
 * emulator child holds two fleets of SIZE machines (bench/fragments-fleet.ts): one importing
 * 10 fragments, one declaring the same modules and resources inline. After both are applied,
 * each is planned with no changes `--runs` times (default 3), the two taking turns (the
 * fragment fleet first on even runs), so a slow moment of the machine falls on both. Every
 * fragment plan counts the fragment reads (`GetFragment`) per fragment and fails unless each
 * fragment is read once. Prints one JSON line `{ size, plan_s, plain_plan_s, ratio, ... }`.
 * `--profile DIR` records each plan of the first run with the V8 profiler into DIR and
 * prints the functions with the most self time (on stderr).
 */
import * as fs from 'node:fs';
import { Session as Inspector } from 'node:inspector/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { createServiceClient, type ServiceClient } from '../src/api/client';
import { EmulatorService } from '../src/api/emulator-control';
import type { DesiredStack } from '../src/engine/desired/stack';
import type { Engine } from '../src/engine/engine';
import { LocalStateBackend } from '../src/engine/state/local-backend';
import { spawnEmulator } from './emulator';
import { EXTRA_MODULES } from './fleet';
import { FRAGMENT_COUNT, fragmentedStack, plainStack } from './fragments-fleet';
import { benchEngine, READ_PARALLELISM } from './session';
import { topSelfTime, type CpuProfile } from './profile-summary';
import { cpuSecondsSince, median, r3, runMain, timed } from './stats';

const silent = { start() {}, done() {}, failed() {}, skipped() {} };

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

/** Counts `GetFragment` calls by fragment id (the client is this process's own). */
function countFragmentReads(client: ServiceClient): Map<string, number> {
  const reads = new Map<string, number>();
  const app = client.appClient;
  const read = app.getFragment.bind(app);
  app.getFragment = (id, version) => {
    reads.set(id, (reads.get(id) ?? 0) + 1);
    return read(id, version);
  };
  return reads;
}

/** Plans the stack under its lock; with `apply`, applies the plan. Returns the non-no-op changes and problems. */
async function planStack(engine: Engine, stack: DesiredStack, apply: boolean): Promise<{ changed: number; problems: number }> {
  const release = await engine.lock([stack.name], 'bench fragments');
  try {
    const { plan, states } = await engine.plan([stack], { refresh: true, destroy: false });
    const changed = plan.changes.filter((c) => c.action !== 'no-op').length;
    const problems = plan.changes.reduce((n, c) => n + c.problems.length, 0);
    if (problems > 0)
      throw new Error(
        `${stack.name}: ${problems} plan problem(s), first: ${JSON.stringify(plan.changes.find((c) => c.problems.length > 0)?.problems[0])}`,
      );
    if (apply && changed > 0) {
      const outcome = await engine.apply(plan, [stack], states, silent);
      if (outcome.failed.length > 0)
        throw new Error(`${stack.name}: ${outcome.failed.length} change(s) failed: ${String(outcome.failed[0]?.error)}`);
    }
    return { changed, problems };
  } finally {
    await release();
  }
}

/** Runs `fn`, recording it into DIR/NAME.cpuprofile when profiling; prints its top self time. */
async function profiled<T>(inspector: Inspector | undefined, dir: string | undefined, name: string, fn: () => Promise<T>): Promise<T> {
  if (!inspector || !dir) return fn();
  await inspector.post('Profiler.start');
  const result = await fn();
  const { profile } = (await inspector.post('Profiler.stop')) as { profile: CpuProfile };
  fs.writeFileSync(path.join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
  process.stderr.write(`\n${name}: top self time\n${topSelfTime(profile, 25)}\n`);
  return result;
}

async function run(): Promise<Record<string, unknown>> {
  const size = Number(process.argv[2] ?? 10000);
  const runs = arg('--runs', 3);
  const parallelism = arg('--parallelism', 10);
  const emu = await spawnEmulator();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetform-bench-fragments-'));
  const { apiKeyId, apiKey, organizationId, locationId } = emu.credentials;
  const client = await createServiceClient({
    serviceHost: emu.url,
    credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey },
    maxConnections: READ_PARALLELISM,
  });
  try {
    const control = client.clientFor(EmulatorService);
    for (const m of EXTRA_MODULES)
      await control.publishModuleVersion({ moduleId: m.moduleId, version: m.version, models: m.models.map((x) => ({ ...x })) });
    const engine = benchEngine(client, new LocalStateBackend(path.join(work, 'state')), parallelism, { organizationId, locationId });
    const fragmented = fragmentedStack(size);
    const plain = plainStack(size);
    process.stderr.write(`  creating ${size} machines importing ${FRAGMENT_COUNT} fragments...\n`);
    const setupFragmentsS = await timed(() => planStack(engine, fragmented, true));
    process.stderr.write(`  creating ${size} machines declaring the same inline...\n`);
    const setupPlainS = await timed(() => planStack(engine, plain, true));
    const reads = countFragmentReads(client);
    const fragmentTimes: number[] = [];
    const plainTimes: number[] = [];
    const readCounts: number[][] = [];
    // The engine's CPU seconds (this process) over each plan: steadier than wall time on shared cores.
    const fragmentCpu: number[] = [];
    const plainCpu: number[] = [];
    const planFragments = async () => {
      reads.clear();
      let changed = -1;
      const cpu = process.cpuUsage();
      fragmentTimes.push(await timed(async () => ({ changed } = await planStack(engine, fragmented, false))));
      fragmentCpu.push(cpuSecondsSince(cpu));
      if (changed !== 0) throw new Error(`the fragment fleet planned ${changed} change(s) where none was expected`);
      const counts = [...reads.values()];
      readCounts.push(counts);
      if (reads.size !== FRAGMENT_COUNT || counts.some((n) => n !== 1))
        throw new Error(`each fragment should be read once per plan; reads by fragment: ${JSON.stringify(Object.fromEntries(reads))}`);
    };
    const planPlain = async () => {
      let changed = -1;
      const cpu = process.cpuUsage();
      plainTimes.push(await timed(async () => ({ changed } = await planStack(engine, plain, false))));
      plainCpu.push(cpuSecondsSince(cpu));
      if (changed !== 0) throw new Error(`the plain fleet planned ${changed} change(s) where none was expected`);
    };
    const profileAt = process.argv.indexOf('--profile');
    const profileDir = profileAt > 0 ? process.argv[profileAt + 1] : undefined;
    const inspector = profileDir ? new Inspector() : undefined;
    if (inspector && profileDir) {
      fs.mkdirSync(profileDir, { recursive: true });
      inspector.connect();
      await inspector.post('Profiler.enable');
      await inspector.post('Profiler.setSamplingInterval', { interval: 500 });
    }
    for (let r = 0; r < runs; r++) {
      process.stderr.write(`  no-change plans, run ${r + 1} of ${runs}...\n`);
      const recorded = r === 0 ? inspector : undefined;
      const fragments = () => profiled(recorded, profileDir, `plan-fragments-${size}`, planFragments);
      const inline = () => profiled(recorded, profileDir, `plan-plain-${size}`, planPlain);
      if (r % 2 === 0) {
        await fragments();
        await inline();
      } else {
        await inline();
        await fragments();
      }
    }
    inspector?.disconnect();
    const planS = median(fragmentTimes);
    const plainPlanS = median(plainTimes);
    return {
      size,
      plan_s: r3(planS),
      plain_plan_s: r3(plainPlanS),
      ratio: r3(planS / plainPlanS),
      fragments: FRAGMENT_COUNT,
      runs,
      parallelism,
      fragment_reads_per_plan: readCounts.map((c) => c.reduce((s, n) => s + n, 0)),
      plan_runs_s: fragmentTimes.map(r3),
      plain_plan_runs_s: plainTimes.map(r3),
      plan_cpu_s: r3(median(fragmentCpu)),
      plain_plan_cpu_s: r3(median(plainCpu)),
      setup_apply_s: r3(setupFragmentsS),
      plain_setup_apply_s: r3(setupPlainS),
    };
  } finally {
    client.close();
    await emu.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

runMain(async () => {
  process.stdout.write(`${JSON.stringify(await run())}\n`);
});
