/**
 * `sim-run.ts MACHINES INTERVAL_MS [SECONDS] [full]`: what simulated machines cost the emulator. An
 * emulator in its own process runs MACHINES machines (each with a registry module and two
 * resources; with `full`, also builtin components in both written forms, builtin services
 * written with a type only, a maintenance sensor, a job and a remote to the machine made
 * before it) checking in every INTERVAL_MS; once every one of them is online and running its
 * config, the emulator's CPU (cores: CPU seconds over wall seconds) is measured for SECONDS,
 * with its peak resident memory. Prints one JSON line (targets: under one core, under 300 MB).
 */
import type { JsonObject } from '@bufbuild/protobuf';
import { createServiceClient } from '../src/api/client';
import { loadServices } from '../src/api/services';
import { spawnEmulator } from './emulator';
import { processCpuSeconds, r3, runMain } from './stats';
import * as fs from 'node:fs';

function peakRssMb(pid: number): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Math.round(Number(kb ?? 0) / 1024);
}

const CONFIG: JsonObject = {
  components: [
    { name: 'board-1', api: 'rdk:component:board', model: 'acme:sensors:pi-board' },
    {
      name: 'ultrasonic-1',
      api: 'rdk:component:sensor',
      model: 'acme:sensors:hc-sr04',
      attributes: { board: 'board-1', trigger_pin: '11' },
    },
  ],
  modules: [{ type: 'registry', name: 'sensors', module_id: 'acme:sensors', version: '~1.2' }],
};

/** The `full` config of a machine: CONFIG with builtins, a maintenance sensor, a job and a remote to `remoteAddress`. */
function fullConfig(remoteAddress: string | undefined): JsonObject {
  return {
    components: [
      ...(CONFIG.components as JsonObject[]),
      { name: 'window', api: 'rdk:component:sensor', model: 'rdk:builtin:fake' },
      { name: 'cam', type: 'camera', model: 'webcam', attributes: { video_path: '/dev/video0' } },
      { name: 'arm', type: 'arm', model: 'fake', depends_on: ['cam'] },
    ],
    services: [
      { name: 'data', type: 'data_manager' },
      { name: 'motion', api: 'rdk:service:motion', model: 'rdk:builtin:builtin' },
    ],
    modules: CONFIG.modules as JsonObject[],
    maintenance: { sensor_name: 'rdk:component:sensor/window', maintenance_allowed_key: 'allowed' },
    jobs: [{ name: 'read-window', schedule: '10s', resource: 'window', method: 'GetReadings' }],
    ...(remoteAddress ? { remotes: [{ name: 'neighbour', address: remoteAddress, prefix: 'n-' }] } : {}),
  };
}

async function run(): Promise<Record<string, unknown>> {
  const machines = Number(process.argv[2] ?? 1000);
  const intervalMs = Number(process.argv[3] ?? 1000);
  const seconds = Number(process.argv[4] ?? 20);
  const full = process.argv[5] === 'full';
  const emu = await spawnEmulator({ simulateIntervalMs: intervalMs });
  const { apiKeyId, apiKey, locationId, organizationId } = emu.credentials;
  const client = await createServiceClient({
    serviceHost: emu.url,
    credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey },
  });
  try {
    const services = await loadServices();
    const app = client.clientFor(services.app);
    const robotConfig = services.sdk.Struct.fromJson(CONFIG);
    // With `full`, each machine's remote is a machine of the batch before it (by its FQDN).
    let previous: string[] = [];
    for (let start = 0; start < machines; start += 50) {
      previous = await Promise.all(
        Array.from({ length: Math.min(50, machines - start) }, async (_, i) => {
          const name = `sim-${start + i}`;
          const { id } = await app.newRobot({ name, location: locationId });
          const { parts } = await app.getRobotParts({ robotId: id });
          const config = full ? services.sdk.Struct.fromJson(fullConfig(previous[i])) : robotConfig;
          await app.updateRobotPart({ id: parts[0]?.id ?? '', name: parts[0]?.name ?? '', robotConfig: config });
          return parts[0]?.fqdn ?? '';
        }),
      );
    }
    // Every machine online before measuring.
    const until = Date.now() + 120_000;
    let online = 0;
    while (online < machines) {
      if (Date.now() > until) throw new Error(`only ${online} of ${machines} machines came online`);
      const summaries = await app.listMachineSummaries({ organizationId, limit: machines });
      online = summaries.locationSummaries.flatMap((l) => l.machineSummaries).filter((m) => m.partSummaries[0]?.onlineState === 1).length;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const cpu0 = processCpuSeconds(emu.pid);
    const t0 = process.hrtime.bigint();
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const wall = Number(process.hrtime.bigint() - t0) / 1e9;
    const cpu = processCpuSeconds(emu.pid) - cpu0;
    return {
      machines,
      full,
      check_in_interval_ms: intervalMs,
      measured_s: r3(wall),
      cpu_cores: r3(cpu / wall),
      peak_mb: peakRssMb(emu.pid),
    };
  } finally {
    client.close();
    await emu.stop();
  }
}

runMain(async () => {
  process.stdout.write(`${JSON.stringify(await run())}\n`);
});
