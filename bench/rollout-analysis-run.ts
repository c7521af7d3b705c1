/**
 * `rollout-analysis-run.ts MACHINES [PARALLELISM] [SETTLE_MS]`: what a rollout's analysis
 * costs. An emulator in its own process runs MACHINES simulated machines (check-ins every
 * second), each capturing its `counter` sensor's Readings at 1 Hz; the engine creates them,
 * applies one change to all at once (the write rate), then rolls the next out in 4 waves
 * (1%, 10%, 50%, all) behind a health gate and two analyses: the error log rate (a bound) and
 * the mean of a captured reading against the baseline. The bound is, per wave, its writes at
 * that rate, its gate (its slowest machine healthy, plus settle) and its measurement windows.
 * Then one measurement of the reading over all MACHINES machines is timed alone (after an
 * untimed one): its CPU seconds, fleetform's and the emulator's (whose simulated machines go
 * on checking in meanwhile). Prints one JSON line.
 */
import { Struct } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import type { ServiceClient } from '../src/api/client';
import { EmulatorService } from '../src/api/emulator-control';
import { loadServices, MACHINE_HOST_HEADER } from '../src/api/services';
import type { RolloutPolicy } from '../src/domain/rollout';
import type { Analysis } from '../src/domain/rollout-analysis';
import type { DesiredStack } from '../src/engine/desired/stack';
import { Engine } from '../src/engine/engine';
import { serviceStatusSource } from '../src/engine/health/service-status-source';
import { serviceSignals } from '../src/engine/health/analysis-signals';
import type { RolloutOutcome } from '../src/engine/rollout/events';
import { LocalStateBackend } from '../src/engine/state/local-backend';
import { openRolloutBench } from './rollout-bench';
import { cpuSecondsSince, pool, processCpuSeconds, r3, runMain } from './stats';

const silent = { start() {}, done() {}, failed() {}, skipped() {} };
const STACK = 'fleet';
const INTERVAL_MS = 2000;

const PICKS: Analysis = {
  name: 'picks',
  metric: { kind: 'reading', resource: 'counter', method: 'Readings', field: 'picks_per_hour', aggregate: 'mean' },
  baseline: { min_ratio: 0.9 },
  interval_ms: INTERVAL_MS,
  count: 1,
  failure_limit: 0,
  inconclusive_limit: 0,
  min_machines: 1,
};
const ERRORS: Analysis = { ...PICKS, name: 'errors', metric: { kind: 'log_rate', level: 'error' }, baseline: undefined, max: 5 };

function stack(machines: number, policy: string, rollout?: RolloutPolicy): DesiredStack {
  const config = JSON.stringify({
    components: [
      {
        name: 'counter',
        api: 'rdk:component:sensor',
        model: 'acme:sensors:hc-sr04',
        service_configs: [{ type: 'data_manager', attributes: { capture_methods: [{ method: 'Readings', capture_frequency_hz: 1 }] } }],
      },
    ],
    modules: [{ type: 'registry', name: 'sensors', module_id: 'acme:sensors', version: policy }],
  });
  const resources = Array.from({ length: machines }, (_, i) => {
    const name = `m-${String(i).padStart(5, '0')}`;
    return { address: `fleetform_machine.${name}`, type: 'fleetform_machine', name, attributes: { name, config }, dependsOn: [] };
  });
  return { name: STACK, provider: {}, resources, foreign: [], ...(rollout ? { rollout } : {}) };
}

async function applyAll(engine: Engine, desired: DesiredStack): Promise<{ seconds: number; changed: number; rollouts: RolloutOutcome[] }> {
  const release = await engine.lock([STACK], 'bench');
  try {
    const { plan, states } = await engine.plan([desired], { refresh: true, destroy: false });
    const changed = plan.changes.filter((c) => c.action !== 'no-op').length;
    const started = performance.now();
    const outcome = await engine.apply(plan, [desired], states, silent, () => undefined);
    if (outcome.failed.length > 0) throw new Error(`${outcome.failed.length} change(s) failed: ${String(outcome.failed[0]?.error)}`);
    return { seconds: (performance.now() - started) / 1000, changed, rollouts: outcome.rollouts };
  } finally {
    await release();
  }
}

const ms = (ts: { seconds: bigint; nanos: number } | undefined): number =>
  ts ? Number(ts.seconds) * 1000 + Math.floor(ts.nanos / 1e6) : 0;

/** Each machine's write time and the moment it became healthy at it, by address; `healthy` when it is now. */
async function landings(client: ServiceClient, backend: LocalStateBackend) {
  const services = await loadServices();
  const app = client.clientFor(services.app);
  const robot = client.clientFor(services.robotStatus);
  const out = new Map<string, { writtenAt: number; healthyAt: number; healthy: boolean; partId: string }>();
  const state = await backend.read(STACK);
  await pool(Object.entries(state.resources), 32, async ([address, entry]) => {
    const partId = entry.ids.part_id ?? '';
    const { part } = await app.getRobotPart({ id: partId });
    const writtenAt = ms(part?.lastUpdated);
    // A machine not online yet (just created) answers unavailable: not healthy yet.
    const status = await robot.getMachineStatus({}, { headers: { [MACHINE_HOST_HEADER]: part?.fqdn || partId } }).catch((err: unknown) => {
      if (err instanceof ConnectError && err.code === Code.Unavailable) return undefined;
      throw err;
    });
    if (!status) {
      out.set(address, { writtenAt, healthyAt: 0, healthy: false, partId });
      return;
    }
    const times = [...status.modules.map((m) => ms(m.lastUpdated)), ...status.resources.map((r) => ms(r.lastUpdated))];
    const healthy =
      status.state === 2 &&
      status.config?.revision === new Date(writtenAt).toISOString() &&
      [...status.modules, ...status.resources].every((x) => x.state === 3);
    out.set(address, { writtenAt, healthyAt: Math.max(...times), healthy, partId });
  });
  return out;
}

async function allHealthy(client: ServiceClient, backend: LocalStateBackend, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const sick = [...(await landings(client, backend)).values()].filter((x) => !x.healthy).length;
    if (sick === 0) return;
    if (Date.now() > until) throw new Error(`${sick} machine(s) never became healthy`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function run(): Promise<Record<string, unknown>> {
  const { machines, parallelism, settleMs, emu, client, backend, engine, ...bench } = await openRolloutBench('fleetform-bench-analysis-');
  try {
    process.stderr.write(`  creating ${machines} capturing machines...\n`);
    await applyAll(engine, stack(machines, '~1.2'));
    const controls = client.clientFor(EmulatorService);
    const names = Array.from({ length: machines }, (_, i) => `m-${String(i).padStart(5, '0')}`);
    await pool(names, 32, (machine) =>
      controls.setSensorReading({ machine, sensor: 'counter', readings: Struct.fromJson({ picks_per_hour: 100 }) }),
    );
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
      analysis: [ERRORS, PICKS],
    };
    process.stderr.write('  the next change in 4 waves, each analyzed...\n');
    const staged = await applyAll(engine, stack(machines, '~1.2', policy));
    const outcome = staged.rollouts[0];
    if (!outcome || outcome.outcome !== 'completed')
      throw new Error(`the rollout did not complete: ${outcome?.reason ?? 'no rollout ran'}`);
    const landed = await landings(client, backend);
    const perWrite = plain.seconds / plain.changed;
    const windowS = Math.max(...(policy.analysis ?? []).map((a) => (a.count * a.interval_ms) / 1000));
    const waves = outcome.waves.map((w) => {
      const times = w.machines.map((m) => landed.get(m.address) ?? { writtenAt: 0, healthyAt: 0 });
      const gate =
        Math.max(0, Math.max(...times.map((t) => t.healthyAt)) - Math.max(...times.map((t) => t.writtenAt))) / 1000 + settleMs / 1000;
      return {
        machines: w.machines.length,
        seconds: r3(w.seconds ?? 0),
        writes_bound_s: r3(perWrite * w.machines.length),
        gate_bound_s: r3(gate),
        windows_s: windowS,
      };
    });
    const bound = waves.reduce((s, w) => s + w.writes_bound_s + w.gate_bound_s + w.windows_s, 0);

    process.stderr.write(`  one measurement of the captured reading on all ${machines} machines...\n`);
    const signals = await serviceSignals(client, await serviceStatusSource(client));
    const all = [...landed.values()].map((l, i) => ({ name: names[i] ?? String(i), partId: l.partId }));
    const end = Date.now();
    // One pass first, untimed: the clients' first calls load and compile what later ones reuse.
    await pool(all, parallelism, (m) => signals.sample(PICKS.metric, m, { start: end - INTERVAL_MS * 5, end }));
    const ownBefore = process.cpuUsage();
    const emuBefore = processCpuSeconds(emu.pid);
    const started = performance.now();
    let points = 0;
    await pool(all, parallelism, async (m) => {
      const sample = await signals.sample(PICKS.metric, m, { start: end - INTERVAL_MS * 5, end });
      points += sample.points?.length ?? 0;
    });
    const readS = (performance.now() - started) / 1000;
    const cpuS = cpuSecondsSince(ownBefore) + (processCpuSeconds(emu.pid) - emuBefore);
    return {
      machines,
      waves: waves.length,
      seconds: r3(staged.seconds),
      bound_s: r3(bound),
      ratio: r3(staged.seconds / bound),
      measurement_cpu_s: r3(cpuS),
      measurement_s: r3(readS),
      measurement_points: points,
      parallelism,
      settle_s: settleMs / 1000,
      per_wave: waves,
    };
  } finally {
    await bench.close();
  }
}

runMain(async () => {
  process.stdout.write(`${JSON.stringify(await run())}\n`);
});
