/**
 * Measures one fleet size in its own process (so peak RSS belongs to this size): synth,
 * then, against a fresh emulator child, the setup apply, plans without and with changes,
 * applies of a 10% change, the floor and the official SDK on the same reads.
 * Prints one JSON line (a results row plus details). Usage: size-run.ts SIZE [--runs N] [--parallelism N]
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createServiceClient, type ServiceClient } from '../src/api/client';
import { EmulatorService } from '../src/api/emulator-control';
import { readStacks } from '../src/engine/desired/read-stacks';
import type { DesiredStack } from '../src/engine/desired/stack';
import { Engine } from '../src/engine/engine';
import { defaultKinds } from '../src/engine/kinds';
import { LocalStateBackend } from '../src/engine/state/local-backend';
import { spawnEmulator } from './emulator';
import { EXTRA_MODULES, FLEET_STACK, synthFleet } from './fleet';
import { measureFloor, measureOursBatched, measureSdk } from './reads';
import { median, medianOf, r3, timed } from './stats';

const silent = { start() {}, done() {}, failed() {}, skipped() {} };

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

async function planOnce(engine: Engine, stacks: DesiredStack[]) {
  const release = await engine.lock([FLEET_STACK], 'bench plan');
  try {
    return await engine.plan(stacks, { refresh: true, destroy: false });
  } finally {
    await release();
  }
}

async function planAndApply(engine: Engine, stacks: DesiredStack[]): Promise<{ planS: number; applyS: number; changed: number }> {
  const release = await engine.lock([FLEET_STACK], 'bench apply');
  try {
    let planned: Awaited<ReturnType<Engine['plan']>> | undefined;
    const planS = await timed(async () => (planned = await engine.plan(stacks, { refresh: true, destroy: false })));
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

function changesOf(p: Awaited<ReturnType<Engine['plan']>>): number {
  return p.plan.changes.filter((c) => c.action !== 'no-op').length;
}

async function publishExtraModules(client: ServiceClient): Promise<void> {
  const control = client.clientFor(EmulatorService);
  for (const m of EXTRA_MODULES) await control.publishModuleVersion({ moduleId: m.moduleId, version: m.version, models: m.models.map((x) => ({ ...x })) });
}

async function main(): Promise<void> {
  const size = Number(process.argv[2]);
  const runs = arg('--runs', size >= 10000 ? 3 : 5);
  const parallelisms = (process.argv.includes('--quick') ? [16, 64] : [8, 16, 32, 64]) as readonly number[];
  const parallelism = arg('--parallelism', 10);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fleetform-bench-'));
  const outA = path.join(work, 'out-a');
  const outB = path.join(work, 'out-b');

  const synthS = await medianOf(runs, () => synthFleet(outA, size, 0));
  synthFleet(outB, size, 1);
  const synthRssMb = process.resourceUsage().maxRSS / 1024;
  const [a, b] = [await readStacks(outA), await readStacks(outB)];

  const emu = await spawnEmulator();
  const { apiKeyId, apiKey, organizationId, locationId } = emu.credentials;
  const client = await createServiceClient({ serviceHost: emu.url, credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey } });
  try {
    await publishExtraModules(client);
    const backend = new LocalStateBackend(path.join(work, 'state'));
    const engine = new Engine({ client, backend, kinds: defaultKinds(), parallelism, lockTimeoutMs: 10_000, defaults: { organizationId, locationId } });

    const setup = await planAndApply(engine, a);
    if (setup.changed !== size) throw new Error(`setup planned ${setup.changed} changes for ${size} machines`);

    let nochange = -1;
    const planNoChangeS = await medianOf(runs, async () => (nochange = changesOf(await planOnce(engine, a))));
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
    client.close();
    await emu.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
