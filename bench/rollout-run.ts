/**
 * `rollout-run.ts MACHINES [PARALLELISM] [SETTLE_MS]`: what a staged rollout costs against its
 * bound. An emulator in its own process runs MACHINES simulated machines (check-ins every
 * second); the engine creates them, applies one config change to all of them at once (the
 * write rate at PARALLELISM), then rolls a second change out in 4 waves (1%, 10%, 50%, all)
 * behind a health gate. The bound is, per wave, its writes at that rate plus its gate: from
 * its last write to the moment its slowest machine became healthy (the newest `last_updated`
 * of its modules and resources, as the machine reports it), plus `settle`. Prints one JSON
 * line `{ machines, waves, seconds, bound_s, ratio, ... }`.
 */
import type { ServiceClient } from '../src/api/client';
import { loadServices, MACHINE_HOST_HEADER } from '../src/api/services';
import type { RolloutPolicy } from '../src/domain/rollout';
import type { DesiredStack } from '../src/engine/desired/stack';
import { Engine } from '../src/engine/engine';
import type { RolloutEvents, RolloutOutcome } from '../src/engine/rollout/events';
import { LocalStateBackend } from '../src/engine/state/local-backend';
import { openRolloutBench } from './rollout-bench';
import { pool, r3, runMain } from './stats';

const silent = { start() {}, done() {}, failed() {}, skipped() {} };
const STACK = 'fleet';

function stack(machines: number, policy: string, rollout?: RolloutPolicy): DesiredStack {
  const config = JSON.stringify({
    components: [{ name: 'board-1', api: 'rdk:component:board', model: 'acme:sensors:pi-board' }],
    modules: [{ type: 'registry', name: 'sensors', module_id: 'acme:sensors', version: policy }],
  });
  const resources = Array.from({ length: machines }, (_, i) => {
    const name = `m-${String(i).padStart(5, '0')}`;
    return { address: `fleetform_machine.${name}`, type: 'fleetform_machine', name, attributes: { name, config }, dependsOn: [] };
  });
  return { name: STACK, provider: {}, resources, foreign: [], ...(rollout ? { rollout } : {}) };
}

async function applyAll(
  engine: Engine,
  desired: DesiredStack,
  events: RolloutEvents = () => undefined,
): Promise<{ seconds: number; changed: number; rollouts: RolloutOutcome[] }> {
  const release = await engine.lock([STACK], 'bench');
  try {
    const { plan, states } = await engine.plan([desired], { refresh: true, destroy: false });
    const changed = plan.changes.filter((c) => c.action !== 'no-op').length;
    const applyStarted = performance.now();
    const outcome = await engine.apply(plan, [desired], states, silent, events);
    if (outcome.failed.length > 0) throw new Error(`${outcome.failed.length} change(s) failed: ${String(outcome.failed[0]?.error)}`);
    return { seconds: (performance.now() - applyStarted) / 1000, changed, rollouts: outcome.rollouts };
  } finally {
    await release();
  }
}

function ms(ts: { seconds: bigint; nanos: number } | undefined): number {
  return ts ? Number(ts.seconds) * 1000 + Math.floor(ts.nanos / 1e6) : 0;
}

/** When each machine's config was written and when it became healthy at it, by machine name. */
async function landings(
  client: ServiceClient,
  state: Awaited<ReturnType<LocalStateBackend['read']>>,
): Promise<Map<string, { writtenAt: number; healthyAt: number; healthy: boolean }>> {
  const services = await loadServices();
  const app = client.clientFor(services.app);
  const robot = client.clientFor(services.robotStatus);
  const out = new Map<string, { writtenAt: number; healthyAt: number; healthy: boolean }>();
  await pool(Object.entries(state.resources), 32, async ([address, entry]) => {
    const partId = entry.ids.part_id ?? '';
    const { part } = await app.getRobotPart({ id: partId });
    const status = await robot.getMachineStatus({}, { headers: { [MACHINE_HOST_HEADER]: part?.fqdn || partId } });
    const writtenAt = ms(part?.lastUpdated);
    const times = [...status.modules.map((m) => ms(m.lastUpdated)), ...status.resources.map((r) => ms(r.lastUpdated))];
    const healthy =
      status.state === 2 &&
      status.config?.revision === new Date(writtenAt).toISOString() &&
      status.modules.every((m) => m.state === 3) &&
      status.resources.every((r) => r.state === 3);
    out.set(address, { writtenAt, healthyAt: Math.max(...times), healthy });
  });
  return out;
}

async function allHealthy(client: ServiceClient, backend: LocalStateBackend, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const l = await landings(client, await backend.read(STACK));
    const sick = [...l.values()].filter((x) => !x.healthy).length;
    if (sick === 0) return;
    if (Date.now() > until) throw new Error(`${sick} machine(s) never became healthy`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function run(): Promise<Record<string, unknown>> {
  const { machines, parallelism, settleMs, emu, client, backend, engine, ...bench } = await openRolloutBench('fleetform-bench-rollout-');
  try {
    process.stderr.write(`  creating ${machines} machines...\n`);
    await applyAll(engine, stack(machines, '~1.2'));
    await allHealthy(client, backend, 300_000);
    process.stderr.write('  one change to every machine at once...\n');
    const plain = await applyAll(engine, stack(machines, '~1.3'));
    await allHealthy(client, backend, 300_000);
    const policy: RolloutPolicy = {
      name: 'bench',
      waves: [{ fraction: 0.01 }, { fraction: 0.1 }, { fraction: 0.5 }, { fraction: 1 }],
      gate: { timeout_ms: 300_000, settle_ms: settleMs },
      abort: {},
      offline: 'wait',
      on_failure: 'rollback',
    };
    process.stderr.write('  the next change in 4 waves...\n');
    const writesS: number[] = [];
    const staged = await applyAll(engine, stack(machines, '~1.2', policy), (e) => {
      if (e.type === 'written') writesS.push(e.seconds);
    });
    const outcome = staged.rollouts[0];
    if (!outcome || outcome.outcome !== 'completed')
      throw new Error(`the rollout did not complete: ${outcome?.reason ?? 'no rollout ran'}`);
    const landed = await landings(client, await backend.read(STACK));
    const perWrite = plain.seconds / plain.changed;
    const waves = outcome.waves.map((w, i) => {
      const times = w.machines.map((m) => landed.get(m.address) ?? { writtenAt: 0, healthyAt: 0 });
      const gate =
        Math.max(0, Math.max(...times.map((t) => t.healthyAt)) - Math.max(...times.map((t) => t.writtenAt))) / 1000 + settleMs / 1000;
      return {
        machines: w.machines.length,
        seconds: r3(w.seconds ?? 0),
        writes_s: r3(writesS[i] ?? 0),
        writes_bound_s: r3(perWrite * w.machines.length),
        gate_bound_s: r3(gate),
      };
    });
    const bound = waves.reduce((s, w) => s + w.writes_bound_s + w.gate_bound_s, 0);
    return {
      machines,
      waves: waves.length,
      seconds: r3(staged.seconds),
      bound_s: r3(bound),
      ratio: r3(staged.seconds / bound),
      parallelism,
      settle_s: settleMs / 1000,
      check_in_interval_s: 1,
      plain_apply_s: r3(plain.seconds),
      per_wave: waves,
    };
  } finally {
    await bench.close();
  }
}

runMain(async () => {
  process.stdout.write(`${JSON.stringify(await run())}\n`);
});
