/**
 * The client's cost per part-version read: `part-version-calls.ts [CALLS] [PARALLELISM]`
 * reads one part's version CALLS times (default 20,000) with PARALLELISM (default 32, as a
 * drift check) in flight, against an emulator of its own (the part holding a config the size
 * of a bench fleet machine's, so the answer's bytes are a drift check's), and prints one JSON line: this
 * process's CPU milliseconds per call (after a warm-up of a tenth of the calls) and the
 * connections the pool opened. With BENCH_PART_VERSION_CPU_PROF=FILE the measured calls
 * are profiled into FILE.
 */
import * as fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createServiceClient } from '../src/api/client';
import { spawnEmulator } from './emulator';
import { cpuSecondsSince, pool, r3, runMain } from './stats';

async function main(): Promise<void> {
  const calls = Number(process.argv[2] ?? '20000');
  const parallelism = Number(process.argv[3] ?? '32');
  const emulator = await spawnEmulator();
  const { apiKeyId, apiKey, locationId } = emulator.credentials;
  const client = await createServiceClient({
    serviceHost: emulator.url,
    credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey },
  });
  try {
    const machineId = await client.appClient.newMachine('probe-bench', locationId);
    const [part] = await client.appClient.getMachineParts(machineId);
    if (!part) throw new Error('the new machine has no part');
    await client.appClient.updateMachinePart(part.id, part.name, fleetMachineConfig());
    const read = () => client.appClient.getMachinePartVersion(part.id);
    await pool(Array.from({ length: Math.ceil(calls / 10) }), parallelism, read);
    const profile = process.env.BENCH_PART_VERSION_CPU_PROF;
    const profiler = profile ? new Session() : undefined;
    if (profiler) {
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.start');
    }
    // Rounds of CALLS / ROUNDS calls: the least CPU per call of a round is the least disturbed by other processes.
    const rounds = Number(process.env.BENCH_PART_VERSION_ROUNDS ?? '5');
    const perRound = Math.ceil(calls / rounds);
    const roundsMs: number[] = [];
    const started = performance.now();
    const cpu = process.cpuUsage();
    for (let r = 0; r < rounds; r++) {
      const roundCpu = process.cpuUsage();
      await pool(Array.from({ length: perRound }), parallelism, read);
      roundsMs.push((cpuSecondsSince(roundCpu) * 1000) / perRound);
    }
    const cpuS = cpuSecondsSince(cpu);
    const split = process.cpuUsage(cpu);
    const wallS = (performance.now() - started) / 1000;
    if (profiler && profile) {
      const { profile: taken } = await profiler.post('Profiler.stop');
      fs.writeFileSync(profile, JSON.stringify(taken));
      profiler.disconnect();
    }
    process.stdout.write(
      `${JSON.stringify({
        calls,
        parallelism,
        cpu_ms_per_call: r3((cpuS * 1000) / (perRound * rounds)),
        least_round_cpu_ms_per_call: r3(Math.min(...roundsMs)),
        user_ms_per_call: r3(split.user / 1000 / (perRound * rounds)),
        system_ms_per_call: r3(split.system / 1000 / (perRound * rounds)),
        wall_s: r3(wallS),
        connections: client.connections(),
      })}\n`,
    );
  } finally {
    await client.close();
    await emulator.stop();
  }
}

/** A config of the bench fleet's shape: five registry modules and ten components with attributes. */
function fleetMachineConfig(): Record<string, unknown> {
  const modules = ['sensors', 'vision', 'arm-control', 'lidar', 'gripper'].map((name) => ({
    type: 'registry',
    name: `mod-${name}`,
    module_id: `acme:${name}`,
    version: '1.2.3',
    env: { LOG_LEVEL: 'info' },
  }));
  const components = Array.from({ length: 10 }, (_, i) => ({
    name: `component-${i}`,
    api: 'rdk:component:sensor',
    model: 'acme:sensors:hc-sr04',
    attributes: {
      board: 'board',
      trigger_pin: String(16 + i),
      echo_interrupt_pin: 'echo',
      timeout_ms: 1000,
      intrinsic_parameters: { fx: 939.2, fy: 940.1, ppx: 640.5, ppy: 360.2, width_px: 1280, height_px: 720 },
      labels: ['box', 'pallet', 'person'],
    },
    depends_on: i === 0 ? [] : ['component-0'],
  }));
  return { modules, components };
}

runMain(main);
