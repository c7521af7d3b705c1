/**
 * `adopt-run.ts MACHINES`: `fleetform adopt` of an organization of MACHINES machines (each
 * with a registry module and two resources, spread over ten locations) on loopback, as a
 * command from an empty folder to written code and state: its wall time and peak memory
 * (goal: 10,000 machines in under a minute). Prints one JSON line.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { JsonObject } from '@bufbuild/protobuf';
import { createServiceClient } from '../src/api/client';
import { loadServices } from '../src/api/services';
import { spawnEmulator } from './emulator';
import { r3, runMain } from './stats';

const ROOT = path.resolve(__dirname, '..');

const CONFIG: JsonObject = {
  components: [
    { name: 'board-1', api: 'rdk:component:board', model: 'acme:sensors:pi-board', attributes: {}, depends_on: [] },
    {
      name: 'ultrasonic-1',
      api: 'rdk:component:sensor',
      model: 'acme:sensors:hc-sr04',
      attributes: { board: 'board-1', trigger_pin: '11' },
      depends_on: ['board-1'],
    },
  ],
  modules: [{ type: 'registry', name: 'acme_sensors', module_id: 'acme:sensors', version: '~1.2' }],
};

/** Runs the real command in `cwd`; resolves with its exit code, output and peak memory. */
function command(
  cwd: string,
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string; peakMb: number; seconds: number }> {
  const rssFile = path.join(cwd, '.bench-rss');
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(
      process.execPath,
      ['--require', path.join(__dirname, 'rss-preload.cjs'), path.join(ROOT, 'bin', 'fleetform.js'), ...args],
      {
        cwd,
        env: { ...process.env, ...env, BENCH_RSS_FILE: rssFile, NO_COLOR: '1', FLEETFORM_TIMINGS: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      const seconds = (performance.now() - t0) / 1000;
      resolve({ code: code ?? -1, stdout, stderr, seconds, peakMb: Number(fs.readFileSync(rssFile, 'utf8')) });
    });
  });
}

async function run(): Promise<Record<string, unknown>> {
  const machines = Number(process.argv[2] ?? 10_000);
  const emu = await spawnEmulator();
  const { apiKeyId, apiKey, organizationId } = emu.credentials;
  const client = await createServiceClient({
    serviceHost: emu.url,
    credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey },
    maxConnections: 64,
  });
  const project = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-bench-adopt-'));
  try {
    const services = await loadServices();
    const app = client.clientFor(services.app);
    const robotConfig = services.sdk.Struct.fromJson(CONFIG);
    const locations: string[] = [];
    for (let i = 0; i < 10; i++) locations.push((await client.appClient.createLocation(organizationId, `site-${i}`)).id);
    for (let start = 0; start < machines; start += 64) {
      await Promise.all(
        Array.from({ length: Math.min(64, machines - start) }, async (_, i) => {
          const n = start + i;
          const { id } = await app.newRobot({ name: `machine-${n}`, location: locations[n % locations.length] as string });
          const { parts } = await app.getRobotParts({ robotId: id });
          await app.updateRobotPart({ id: parts[0]?.id ?? '', name: parts[0]?.name ?? '', robotConfig });
        }),
      );
    }
    fs.mkdirSync(path.join(project, 'node_modules'));
    for (const m of ['cdktf', 'constructs', 'tsx'])
      fs.symlinkSync(path.join(ROOT, 'node_modules', m), path.join(project, 'node_modules', m));
    fs.symlinkSync(ROOT, path.join(project, 'node_modules', 'fleetform'));
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'bench-adopt', private: true }));
    const env = { FLEETFORM_ENDPOINT: emu.url, FLEETFORM_API_KEY: apiKey, FLEETFORM_API_KEY_ID: apiKeyId };
    const adopted = await command(project, ['adopt', '--no-jobs'], env);
    if (adopted.code !== 0 || !adopted.stdout.includes('Imported'))
      throw new Error(`adopt failed (exit ${adopted.code}): ${adopted.stderr || adopted.stdout}`);
    const plan = await command(project, ['plan', '--detailed-exitcode'], env);
    if (plan.code !== 0)
      throw new Error(`the plan after adopt is not empty (exit ${plan.code}): ${plan.stderr || plan.stdout.slice(-2000)}`);
    const phases = /fleetform-timings (\{.*\})/.exec(adopted.stderr)?.[1];
    return {
      machines,
      seconds: r3(adopted.seconds),
      peak_mb: adopted.peakMb,
      plan_after_s: r3(plan.seconds),
      phases: phases ? (JSON.parse(phases) as unknown) : {},
    };
  } finally {
    client.close();
    await emu.stop();
    fs.rmSync(project, { recursive: true, force: true });
  }
}

runMain(async () => {
  process.stdout.write(`${JSON.stringify(await run())}\n`);
});
