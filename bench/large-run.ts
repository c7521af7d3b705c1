/**
 * A no-change plan of a large fleet (`npm run bench -- --sizes 100000` runs it for each size
 * over 10,000), made as fast as the emulator allows: `APPLIED` machines are synthesized and
 * applied by fleetform, then copied to SIZE straight into the emulator's SQLite file and the
 * state (reconcile-seed.ts), and the synthesized stack is grown to SIZE (large-fleet.ts). The
 * plan runs in a process of its own, as `fleetform plan` does, in turns with the floor (every
 * part read once with our client at 32 in flight). Prints one JSON line: the plan's wall
 * seconds, CPU seconds of fleetform and of the emulator, peak memory of both, and with
 * `--heap TOP` the functions whose allocations the plan still holds at its end.
 * Usage: `large-run.ts SIZE [--pairs N] [--heap TOP]`.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createServiceClient } from '../src/api/client';
import { EmulatorService } from '../src/api/emulator-control';
import { spawnEmulator } from './emulator';
import { EXTRA_MODULES, FLEET_STACK } from './fleet';
import { growFleetStack } from './large-fleet';
import { paired } from './paired';
import { cloneFleetMachines } from './reconcile-seed';
import { READ_PARALLELISM, synthInChild } from './session';
import { pool, r3, runMain, timed } from './stats';

/** Machines fleetform itself creates before the rest are copied. */
const APPLIED = 100;
/** The plan process's heap limit: over it the plan fails rather than take the machine's memory. */
const PLAN_HEAP_MB = 6144;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}

/** Peak resident memory of a process, from /proc (Linux). */
function peakMb(pid: number): number {
  const hwm = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return hwm ? Math.round(Number(hwm[1]) / 1024) : 0;
}

interface PlanChild {
  readonly changes: number;
  readonly wall_s: number;
  readonly cpu_s: number;
  readonly read_stacks_s: number;
  readonly peak_rss_mb: number;
  readonly heap_used_mb: number;
  readonly heap_top?: string[];
}

function planInChild(sessionFile: string, outdir: string, heapTop: number): PlanChild {
  const out = execFileSync(
    process.execPath,
    [
      `--max-old-space-size=${PLAN_HEAP_MB}`,
      '--import',
      'tsx',
      path.join(__dirname, 'plan-child.ts'),
      sessionFile,
      outdir,
      ...(heapTop > 0 ? ['--heap', String(heapTop)] : []),
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 16 << 20 },
  );
  return JSON.parse(out.trim().split('\n').pop() as string) as PlanChild;
}

async function main(): Promise<void> {
  const size = Number(process.argv[2]);
  const pairs = Number(arg('--pairs') ?? (size >= 50_000 ? 1 : 3));
  const heapTop = Number(arg('--heap') ?? 0);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetform-bench-large-'));
  const small = path.join(work, 'out-small');
  const large = path.join(work, 'out');
  const stateDir = path.join(work, 'state');
  const emu = await spawnEmulator();
  const { apiKeyId, apiKey } = emu.credentials;
  const client = await createServiceClient({
    serviceHost: emu.url,
    credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey },
    maxConnections: READ_PARALLELISM,
  });
  try {
    const control = client.clientFor(EmulatorService);
    for (const m of EXTRA_MODULES)
      await control.publishModuleVersion({ moduleId: m.moduleId, version: m.version, models: m.models.map((x) => ({ ...x })) });
    const sessionFile = path.join(work, 'session.json');
    fs.writeFileSync(sessionFile, JSON.stringify({ url: emu.url, credentials: emu.credentials, stateDir, parallelism: 10 }), {
      mode: 0o600,
    });
    process.stderr.write(`  applying ${APPLIED} machines, copying them to ${size}...\n`);
    const applyS = await timed(() => {
      synthInChild(small, APPLIED, 0);
      execFileSync(process.execPath, ['--import', 'tsx', path.join(__dirname, 'engine-child.ts'), sessionFile, small], {
        stdio: ['ignore', 'ignore', 'inherit'],
      });
    });
    const seedS = await timed(() => cloneFleetMachines(emu.dataDir, stateDir, APPLIED, size));
    const growS = await timed(() => growFleetStack(small, large, size));
    const state = JSON.parse(fs.readFileSync(path.join(stateDir, `${FLEET_STACK}.state.json`), 'utf8')) as {
      resources: Record<string, { ids: Record<string, unknown> }>;
    };
    const partIds = Object.values(state.resources)
      .map((e) => e.ids.part_id)
      .filter((id): id is string => typeof id === 'string');
    if (partIds.length !== size) throw new Error(`the state holds ${partIds.length} parts, expected ${size}`);
    process.stderr.write(`  planning ${size} machines (${pairs} turn(s) with the floor)...\n`);
    const plans: PlanChild[] = [];
    const turns = await paired(
      pairs,
      emu.pid,
      async () => plans.push(planInChild(sessionFile, large, plans.length === 0 ? heapTop : 0)),
      () => pool(partIds, 32, (id) => client.appClient.getMachinePart(id)),
    );
    const bad = plans.find((p) => p.changes !== 0);
    if (bad) throw new Error(`a no-change plan of ${size} machines planned ${bad.changes} changes`);
    const median = (f: (p: PlanChild) => number) => r3([...plans.map(f)].sort((x, y) => x - y)[Math.floor(plans.length / 2)] as number);
    // The plan process's own CPU is its report; `turns.a.own_cpu_s` is the waiting parent's.
    const planCpuS = median((p) => p.cpu_s);
    const floorCpuS = turns.b.own_cpu_s + turns.b.emulator_cpu_s;
    process.stdout.write(
      `${JSON.stringify({
        size,
        applied: APPLIED,
        pairs,
        setup_apply_s: r3(applyS),
        seed_s: r3(seedS),
        grow_stack_s: r3(growS),
        plan_s: median((p) => p.wall_s),
        plan_read_stacks_s: median((p) => p.read_stacks_s),
        plan_cpu_s: planCpuS,
        plan_emulator_cpu_s: turns.a.emulator_cpu_s,
        floor_s: turns.b.wall_s,
        floor_cpu_s: turns.b.own_cpu_s,
        floor_emulator_cpu_s: turns.b.emulator_cpu_s,
        plan_to_floor: turns.wall_ratio,
        plan_to_floor_cpu: r3((planCpuS + turns.a.emulator_cpu_s) / floorCpuS),
        peak_rss_mb: Math.max(...plans.map((p) => p.peak_rss_mb)),
        heap_used_mb: Math.max(...plans.map((p) => p.heap_used_mb)),
        emulator_peak_mb: peakMb(emu.pid),
        load_average: turns.load_average,
        ...(plans[0]?.heap_top ? { heap_top: plans[0].heap_top } : {}),
      })}\n`,
    );
  } finally {
    await client.close();
    await emu.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

runMain(main);
