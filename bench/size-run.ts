/**
 * Measures one fleet size in its own process (so peak RSS belongs to this size): synth,
 * then, against a fresh emulator child, the setup apply, plans without and with changes,
 * applies of a 10% change, the floor and the official SDK on the same reads.
 * Prints one JSON line (a results row plus details). Usage: size-run.ts SIZE [--runs N] [--parallelism N]
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FLEET_STACK } from './fleet';
import { measureFloor, measureOursBatched, measureSdk, measureWriteFloor } from './reads';
import { openSession, planAndApply, planOnce, synthInChild } from './session';
import { median, medianOf, r3 } from './stats';

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
  // One synth per process, as each `fleetform plan` runs the app once.
  const synthRuns = Array.from({ length: runs }, () => synthInChild(path.join(work, 'out-a'), size, 0));
  const synthS = median(synthRuns.map((r) => r.seconds[0] as number));
  const synth = { peak_rss_mb: Math.max(...synthRuns.map((r) => r.peak_rss_mb)) };
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
    const planChangedS = median(planTimes);
    const applyChangedS = median(applyTimes);

    const state = await backend.read(FLEET_STACK);
    const partIds = Object.values(state.resources).map((e) => e.ids.part_id).filter((id): id is string => typeof id === 'string');
    const floor = await measureFloor(client, partIds, parallelisms, runs);
    mark('floor');
    const sdkS = await measureSdk(emu.url, apiKeyId, apiKey, partIds, floor.parallelism, runs);
    mark('sdk');
    const oursBatchedS = await measureOursBatched(client, partIds, floor.parallelism, runs);
    // The parts the 10% change touches (every tenth machine, as fleet.ts changes them).
    const changedParts = Object.entries(state.resources)
      .filter(([address]) => Number(/(\d+)$/.exec(address)?.[1] ?? 1) % 10 === 0)
      .map(([, e]) => e.ids.part_id)
      .filter((id): id is string => typeof id === 'string');
    if (changedParts.length !== Math.ceil(size / 10)) throw new Error(`found ${changedParts.length} changed parts, expected ${Math.ceil(size / 10)}`);
    const writeFloorS = await measureWriteFloor(client, changedParts, floor.parallelism, runs);
    mark('ours_batched_and_write_floor');

    const row = {
      size,
      synth_s: r3(synthS),
      plan_nochange_s: r3(planNoChangeS),
      plan_changed_s: r3(planChangedS),
      apply_changed_s: r3(applyChangedS),
      floor_s: r3(floor.floorS),
      plan_to_floor: r3(planNoChangeS / floor.floorS),
      client_to_sdk: r3(sdkS / oursBatchedS),
      // fleetform's own memory: the synth process and the engine up to the end of its
      // phases (the client measurements that follow are not the tool's).
      peak_rss_mb: Math.max(synth.peak_rss_mb, peaks.plan_apply_changed as number),
    };
    const details = {
      size,
      runs,
      engine_parallelism: parallelism,
      setup_apply_s: r3(setup.applyS),
      plan_nochange_changes: nochange,
      floor_parallelism: floor.parallelism,
      floor_by_parallelism_s: Object.fromEntries(Object.entries(floor.byParallelism).map(([k, v]) => [k, r3(v)])),
      write_floor_s: r3(writeFloorS),
      apply_to_write_floor: r3(applyChangedS / writeFloorS),
      sdk_reads_s: r3(sdkS),
      ours_batched_reads_s: r3(oursBatchedS),
      synth_peak_rss_mb: synth.peak_rss_mb,
      engine_peak_rss_mb: peaks.plan_apply_changed,
      peak_rss_mb_after: peaks,
    };
    process.stdout.write(`${JSON.stringify({ row, details })}\n`);
  } finally {
    await session.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
