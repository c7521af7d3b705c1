/**
 * Measures one fleet size in its own process (so peak RSS belongs to this size): synth,
 * then, against a fresh emulator child, the setup apply, plans without and with changes,
 * applies of a 10% change, the floor and the official SDK on the same reads.
 * Prints one JSON line (a results row plus details). Usage: size-run.ts SIZE [--runs N] [--parallelism N]
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FLEET_STACK, synthFleet } from './fleet';
import { measureFloor, measureOursBatched, measureSdk } from './reads';
import { openSession, planAndApply, planOnce } from './session';
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
  const synthS = await medianOf(runs, () => synthFleet(path.join(work, 'out-a'), size, 0));
  const synthRssMb = process.resourceUsage().maxRSS / 1024;
  const session = await openSession(size, parallelism, work);
  const { engine, backend, client, emu, a, b } = session;
  const { apiKeyId, apiKey } = emu.credentials;
  try {
    const setup = await planAndApply(engine, a);
    if (setup.changed !== size) throw new Error(`setup planned ${setup.changed} changes for ${size} machines`);

    let nochange = -1;
    const planNoChangeS = await medianOf(runs, async () => (nochange = await planOnce(engine, a)));
    if (nochange !== 0) throw new Error(`expected no changes, planned ${nochange}`);
    // Each round plans a 10% change (to revision 1, back to 0, ...) and applies it.
    const planTimes: number[] = [];
    const applyTimes: number[] = [];
    for (let r = 0; r < runs; r++) {
      const round = await planAndApply(engine, r % 2 === 0 ? b : a);
      if (round.changed !== Math.ceil(size / 10)) throw new Error(`expected ${Math.ceil(size / 10)} changes, planned ${round.changed}`);
      planTimes.push(round.planS);
      applyTimes.push(round.applyS);
    }
    const planChangedS = median(planTimes);
    const applyChangedS = median(applyTimes);

    const state = await backend.read(FLEET_STACK);
    const partIds = Object.values(state.resources).map((e) => e.ids.part_id).filter((id): id is string => typeof id === 'string');
    const floor = await measureFloor(client, partIds, parallelisms, runs);
    const sdkS = await measureSdk(emu.url, apiKeyId, apiKey, partIds, floor.parallelism, runs);
    const oursBatchedS = await measureOursBatched(client, partIds, floor.parallelism, runs);

    const row = {
      size,
      synth_s: r3(synthS),
      plan_nochange_s: r3(planNoChangeS),
      plan_changed_s: r3(planChangedS),
      apply_changed_s: r3(applyChangedS),
      floor_s: r3(floor.floorS),
      plan_to_floor: r3(planNoChangeS / floor.floorS),
      client_to_sdk: r3(sdkS / oursBatchedS),
      peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    };
    const details = {
      size,
      runs,
      engine_parallelism: parallelism,
      setup_apply_s: r3(setup.applyS),
      plan_nochange_changes: nochange,
      floor_parallelism: floor.parallelism,
      floor_by_parallelism_s: Object.fromEntries(Object.entries(floor.byParallelism).map(([k, v]) => [k, r3(v)])),
      sdk_reads_s: r3(sdkS),
      ours_batched_reads_s: r3(oursBatchedS),
      synth_peak_rss_mb: Math.round(synthRssMb),
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
