/**
 * Measures one fleet size in its own process (so peak RSS belongs to this size): synth,
 * then, against a fresh emulator child, the setup apply, plans without and with changes,
 * applies of a 10% change, the floor and the official SDK on the same reads.
 * Prints one JSON line (a results row plus details). Usage: size-run.ts SIZE [--runs N] [--parallelism N]
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FLEET_STACK } from './fleet';
import { measureFloor, measureOursBatched, measureSdk, measureWriteFloor } from './reads';
import { paired } from './paired';
import { openSession, planAndApply, planOnce, synthFloorInChild, synthInChild, type Session, type SynthRun } from './session';
import { median, medianOf, pool, r3, runMain } from './stats';

/** Runs bench/engine-child.ts (one plan and apply of the stacks in `out`) against the session's emulator and state. */
function applyInChild(session: Session, out: string, parallelism: number): { changed: number; failed: number; peak_rss_mb: number } {
  const file = path.join(session.work, 'session.json');
  fs.writeFileSync(
    file,
    JSON.stringify({ url: session.emu.url, credentials: session.emu.credentials, stateDir: path.join(session.work, 'state'), parallelism }),
    { mode: 0o600 },
  );
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join(__dirname, 'engine-child.ts'), file, path.join(session.work, out)],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  if (child.status !== 0) throw new Error(`apply process failed (exit ${child.status})`);
  return JSON.parse(child.stdout.trim().split('\n').pop() as string) as { changed: number; failed: number; peak_rss_mb: number };
}

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

async function main(): Promise<void> {
  const size = Number(process.argv[2]);
  const runs = arg('--runs', size >= 10000 ? 3 : 5);
  const parallelisms = (process.argv.includes('--quick') ? [16, 64] : [8, 16, 32, 64]) as readonly number[];
  const parallelism = arg('--parallelism', 10);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetform-bench-'));
  // One synth per process, as each `fleetform plan` runs the app once; each followed by
  // cdktf's own cost for the same tree (synth-floor.ts), so the two share the moment.
  const synthRuns: SynthRun[] = [];
  const floorRuns: SynthRun[] = [];
  for (let r = 0; r < runs; r++) {
    synthRuns.push(synthInChild(path.join(work, 'out-a'), size, 0));
    floorRuns.push(synthFloorInChild(path.join(work, 'out-a'), size));
  }
  const synthS = median(synthRuns.map((r) => r.seconds[0] as number));
  const synth = { peak_rss_mb: Math.max(...synthRuns.map((r) => r.peak_rss_mb)) };
  const synthFloorS = median(floorRuns.map((r) => r.seconds[0] as number));
  const synthFloorPeakMb = Math.max(...floorRuns.map((r) => r.peak_rss_mb));
  const session = await openSession(size, parallelism, work);
  const { engine, backend, client, emu, a, b } = session;
  const { apiKeyId, apiKey } = emu.credentials;
  // Peak RSS of this process after each phase: where the memory went.
  const peaks: Record<string, number> = {};
  const mark = (phase: string) => (peaks[phase] = Math.round(process.resourceUsage().maxRSS / 1024));
  mark('read_stacks');
  try {
    const setup = await planAndApply(engine, a);
    if (setup.changed !== size) throw new Error(`setup planned ${setup.changed} changes for ${size} machines`);
    mark('setup_apply');

    let nochange = -1;
    const planNoChangeS = await medianOf(runs, async () => (nochange = await planOnce(engine, a)));
    if (nochange !== 0) throw new Error(`expected no changes, planned ${nochange}`);
    mark('plan_nochange');
    // Each round plans a 10% change (to revision 1, back to 0, ...) and applies it.
    const planTimes: number[] = [];
    const applyTimes: number[] = [];
    for (let r = 0; r < runs; r++) {
      const round = await planAndApply(engine, r % 2 === 0 ? b : a);
      if (round.changed !== Math.ceil(size / 10)) throw new Error(`expected ${Math.ceil(size / 10)} changes, planned ${round.changed}`);
      planTimes.push(round.planS);
      applyTimes.push(round.applyS);
    }
    mark('plan_apply_changed');
    // One apply of the change in a process of its own, as `fleetform apply` runs: its peak
    // memory is the engine's (the rounds above, in one long process, let the heap grow).
    const applyChild = applyInChild(session, runs % 2 === 1 ? 'out-a' : 'out-b', parallelism);
    if (applyChild.changed !== Math.ceil(size / 10) || applyChild.failed !== 0)
      throw new Error(`apply process: ${JSON.stringify(applyChild)}`);
    const planChangedS = median(planTimes);
    const applyChangedS = median(applyTimes);

    const state = await backend.read(FLEET_STACK);
    const partIds = Object.values(state.resources)
      .map((e) => e.ids.part_id)
      .filter((id): id is string => typeof id === 'string');
    const floor = await measureFloor(client, partIds, parallelisms, runs);
    mark('floor');
    // The plan and the floor in turns, so a busy moment of the machine falls on both.
    const turns = await paired(
      runs,
      emu.pid,
      () => planOnce(engine, a),
      () => pool(partIds, floor.parallelism, (id) => client.appClient.getMachinePart(id)),
    );
    mark('paired');
    const sdkS = await measureSdk(emu.url, apiKeyId, apiKey, partIds, floor.parallelism, runs);
    mark('sdk');
    const oursBatchedS = await measureOursBatched(client, partIds, floor.parallelism, runs);
    // The parts the 10% change touches (every tenth machine, as fleet.ts changes them).
    const changedParts = Object.entries(state.resources)
      .filter(([address]) => Number(/(\d+)$/.exec(address)?.[1] ?? 1) % 10 === 0)
      .map(([, e]) => e.ids.part_id)
      .filter((id): id is string => typeof id === 'string');
    if (changedParts.length !== Math.ceil(size / 10))
      throw new Error(`found ${changedParts.length} changed parts, expected ${Math.ceil(size / 10)}`);
    const writeFloorS = await measureWriteFloor(client, changedParts, floor.parallelism, runs);
    mark('ours_batched_and_write_floor');

    const engineRss = Math.max(peaks.setup_apply as number, applyChild.peak_rss_mb);
    const row = {
      size,
      synth_s: r3(synthS),
      synth_peak_mb: synth.peak_rss_mb,
      synth_floor_s: r3(synthFloorS),
      synth_floor_peak_mb: synthFloorPeakMb,
      synth_to_floor: r3(synthS / synthFloorS),
      synth_mb_to_floor: r3(synth.peak_rss_mb / synthFloorPeakMb),
      plan_nochange_s: r3(planNoChangeS),
      plan_changed_s: r3(planChangedS),
      apply_changed_s: r3(applyChangedS),
      floor_s: r3(floor.floorS),
      plan_to_floor: turns.wall_ratio,
      plan_to_floor_cpu: turns.cpu_ratio,
      client_to_sdk: r3(sdkS / oursBatchedS),
      // fleetform's own memory: the synth process, and the engine as a command runs it
      // (the setup apply, first in this process, and one apply in a process of its own).
      peak_rss_mb: Math.max(synth.peak_rss_mb, engineRss),
    };
    const details = {
      size,
      runs,
      engine_parallelism: parallelism,
      setup_apply_s: r3(setup.applyS),
      plan_nochange_changes: nochange,
      floor_parallelism: floor.parallelism,
      plan_floor_turns: {
        pairs: turns.pairs,
        plan: turns.a,
        floor: turns.b,
        own_cpu_ratio: turns.own_cpu_ratio,
        load_average: turns.load_average,
      },
      floor_by_parallelism_s: Object.fromEntries(Object.entries(floor.byParallelism).map(([k, v]) => [k, r3(v)])),
      write_floor_s: r3(writeFloorS),
      apply_to_write_floor: r3(applyChangedS / writeFloorS),
      sdk_reads_s: r3(sdkS),
      ours_batched_reads_s: r3(oursBatchedS),
      synth_peak_rss_mb: synth.peak_rss_mb,
      engine_peak_rss_mb: engineRss,
      apply_process_peak_rss_mb: applyChild.peak_rss_mb,
      peak_rss_mb_after: peaks,
    };
    process.stdout.write(`${JSON.stringify({ row, details })}\n`);
  } finally {
    await session.close();
  }
}

runMain(main);
