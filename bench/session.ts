/**
 * A benchmark session: a synthesized fleet (revision 0 and 1), a fresh emulator child, our
 * client and an engine with a local state backend in a temporary folder.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createServiceClient, type ServiceClient } from '../src/api/client';
import { EmulatorService } from '../src/api/emulator-control';
import { readStacks } from '../src/engine/desired/read-stacks';
import type { DesiredStack } from '../src/engine/desired/stack';
import { Engine } from '../src/engine/engine';
import { defaultKinds } from '../src/engine/kinds';
import type { StateBackend } from '../src/engine/state/backend';
import { LocalStateBackend } from '../src/engine/state/local-backend';
import { spawnEmulator, type BenchEmulator } from './emulator';
import { EXTRA_MODULES, FLEET_STACK } from './fleet';
import { cpuSecondsSince, timed } from './stats';

/** The CLI's default `--read-parallelism`. */
export const READ_PARALLELISM = 512;

const silent = { start() {}, done() {}, failed() {}, skipped() {} };

/** Reads a revision's synthesized stacks. */
export type LoadStacks = () => Promise<DesiredStack[]>;

export interface Session {
  readonly work: string;
  readonly emu: BenchEmulator;
  readonly client: ServiceClient;
  readonly engine: Engine;
  readonly backend: LocalStateBackend;
  /**
   * Readers of the synthesized stacks of revision 0 and of revision 1 (every tenth machine
   * changed). Each plan reads them afresh, as `fleetform plan` does, so a session never
   * holds both revisions.
   */
  readonly a: LoadStacks;
  readonly b: LoadStacks;
  close(): Promise<void>;
}

/** What synthesizing in a child process took: seconds of each run, and its peak RSS. */
export interface SynthRun {
  readonly seconds: number[];
  /** CPU seconds of each run, every thread of the process (see synth-child.ts). */
  readonly cpu_seconds: number[];
  readonly peak_rss_mb: number;
}

/** Synthesizes revision `revision` of the fleet `runs` times into `outdir`, in a child process. */
export function synthInChild(outdir: string, size: number, revision: number, runs = 1, unchecked = false): SynthRun {
  const mode = unchecked ? ['unchecked'] : [];
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join(__dirname, 'synth-child.ts'), outdir, String(size), String(revision), String(runs), ...mode],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 1 << 20,
    },
  );
  if (child.status !== 0) throw new Error(`synthesizing ${size} machines failed (exit ${child.status})`);
  return JSON.parse(child.stdout.trim().split('\n').pop() as string) as SynthRun;
}

/** cdktf's own cost for the tree synthesized into `outdir` (bench/synth-floor.ts), one run in a child process; `checked`: with the machine configs validated in it. */
export function synthFloorInChild(outdir: string, size: number, checked = false): SynthRun {
  const mode = checked ? ['--checked'] : [];
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join(__dirname, 'synth-floor.ts'), String(size), '--runs', '1', '--from', outdir, ...mode],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 1 << 20,
    },
  );
  if (child.status !== 0) throw new Error(`the synth floor of ${size} machines failed (exit ${child.status})`);
  return JSON.parse(child.stdout.trim().split('\n').pop() as string) as SynthRun;
}

/**
 * Synthesizes both revisions into `work` (revision 0 only if absent), each in a child
 * process, and starts the emulator.
 */
export async function openSession(
  size: number,
  parallelism: number,
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetform-bench-')),
): Promise<Session> {
  const outA = path.join(work, 'out-a');
  const outB = path.join(work, 'out-b');
  if (!fs.existsSync(outA)) synthInChild(outA, size, 0);
  synthInChild(outB, size, 1);
  const a: LoadStacks = () => readStacks(outA);
  const b: LoadStacks = () => readStacks(outB);
  const emu = await spawnEmulator();
  const { apiKeyId, apiKey, organizationId, locationId } = emu.credentials;
  // As the CLI runs: writes at `parallelism`, plan reads following the network up to 512.
  const client = await createServiceClient({
    serviceHost: emu.url,
    credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey },
    maxConnections: READ_PARALLELISM,
  });
  const control = client.clientFor(EmulatorService);
  for (const m of EXTRA_MODULES)
    await control.publishModuleVersion({ moduleId: m.moduleId, version: m.version, models: m.models.map((x) => ({ ...x })) });
  const backend = new LocalStateBackend(path.join(work, 'state'));
  const engine = benchEngine(client, backend, parallelism, { organizationId, locationId });
  return {
    work,
    emu,
    client,
    engine,
    backend,
    a,
    b,
    close: async () => {
      client.close();
      await emu.stop();
      fs.rmSync(work, { recursive: true, force: true });
    },
  };
}

/** An engine as the CLI builds one: writes at `parallelism`, plan reads starting at 128 and following the network up to 512. */
export function benchEngine(
  client: ServiceClient,
  backend: StateBackend,
  parallelism: number,
  defaults: { organizationId: string; locationId: string },
): Engine {
  return new Engine({
    client,
    backend,
    kinds: defaultKinds(),
    parallelism,
    readParallelism: Math.max(parallelism, READ_PARALLELISM),
    lockTimeoutMs: 10_000,
    defaults,
  });
}

/**
 * CPU milliseconds of busy work `BENCH_SLOW_PLAN_CPU_MS` adds to every no-change plan the
 * bench times (a plan made slower on purpose, which `npm run bench -- --check` must fail).
 */
function slowPlanOnPurpose(): void {
  const ms = Number(process.env.BENCH_SLOW_PLAN_CPU_MS ?? 0);
  if (!(ms > 0)) return;
  const start = process.cpuUsage();
  while (cpuSecondsSince(start) * 1000 < ms);
}

/** Reads the stacks and plans them under the lock; returns how many changes the plan holds. */
export async function planOnce(engine: Engine, load: LoadStacks): Promise<number> {
  const release = await engine.lock([FLEET_STACK], 'bench plan');
  try {
    slowPlanOnPurpose();
    const { plan } = await engine.plan(await load(), { refresh: true, destroy: false });
    return plan.changes.filter((c) => c.action !== 'no-op').length;
  } finally {
    await release();
  }
}

/**
 * Reads the stacks, plans and applies them under the lock, timing the plan (reading
 * included) and the apply; throws when a change fails.
 */
export async function planAndApply(engine: Engine, load: LoadStacks): Promise<{ planS: number; applyS: number; changed: number }> {
  const release = await engine.lock([FLEET_STACK], 'bench apply');
  try {
    let planned: Awaited<ReturnType<Engine['plan']>> | undefined;
    let stacks: DesiredStack[] = [];
    const planS = await timed(async () => {
      stacks = await load();
      planned = await engine.plan(stacks, { refresh: true, destroy: false });
    });
    const { plan, states } = planned as NonNullable<typeof planned>;
    const changed = plan.changes.filter((c) => c.action !== 'no-op').length;
    let failed = 0;
    const applyS = await timed(async () => (failed = (await engine.apply(plan, stacks, states, silent)).failed.length));
    if (failed > 0) throw new Error(`${failed} changes failed to apply`);
    return { planS, applyS, changed };
  } finally {
    await release();
  }
}
