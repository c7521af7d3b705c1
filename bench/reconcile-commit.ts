/**
 * From a commit to its first wave's write: `reconcile-commit.ts SIZE [COMMITS]`. Runs the real
 * `fleetform reconcile --repo` on a local git repository holding a project of SIZE machines
 * with a two-wave rollout (one canary, then the rest), on an emulator of its own (simulated
 * machines checking in), lets it create the fleet, then commits a new module version COMMITS
 * times and measures, each time, from the commit to the canary's part being written, as the
 * emulator records it (the part's `last_updated`, read with the client while the rollout
 * runs): the reconciler's own log is not the clock. Its log gives the split: the commit seen
 * (a cycle starting), the project loaded (fetch and synthesis), the apply started (the plan).
 * Prints one JSON line.
 */
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { createServiceClient, type ServiceClient } from '../src/api/client';
import { spawnEmulator } from './emulator';
import { median, r3, runMain } from './stats';

const ROOT = path.resolve(__dirname, '..');
const BIN = path.join(ROOT, 'bin', 'fleetform.js');

/** SIZE machines running acme:sensors at the version fleet.json says; the first is the canary. */
const MAIN = `
const { App, TerraformStack } = require(${JSON.stringify(path.join(ROOT, 'node_modules', 'cdktf'))});
const ff = require(${JSON.stringify(path.join(ROOT, 'dist', 'index.js'))});
const spec = require('./fleet.json');
const app = new App();
const stack = new TerraformStack(app, 'fleet');
new ff.FleetProvider(stack, 'cloud', {});
const machines = [];
for (let i = 1; i <= spec.machines; i++) {
  const m = new ff.Machine(stack, 'picker-' + i, { name: 'picker-' + i });
  new ff.Module(m, 'sensors', { moduleId: 'acme:sensors', version: spec.version });
  machines.push(m);
}
new ff.Rollout(stack, 'careful', { waves: [{ machines: [machines[0]] }, { fraction: 1 }], gate: { timeout: '120s', settle: '100ms' }, abort: { maxFailed: 0 } });
app.synth();
`;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', '-c', 'commit.gpgsign=false', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();
}

interface Event {
  readonly type: string;
}

/** Receives the reconciler's webhook events; `next` waits for one after `since`. */
async function receiver(): Promise<{ url: string; events: Event[]; next(type: string, since: number): Promise<void>; close(): void }> {
  const events: Event[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      events.push(JSON.parse(body) as Event);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const next = async (type: string, since: number): Promise<void> => {
    const deadline = Date.now() + 600_000;
    while (!events.slice(since).some((e) => e.type === type)) {
      if (Date.now() > deadline) throw new Error(`no ${type} event within 10 minutes; got ${events.map((e) => e.type).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    events,
    next,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** When the canary's part was written after `since` (epoch ms), as the emulator records it; read every 20 ms until it is. */
async function canaryWrittenAt(client: ServiceClient, partId: string, since: number): Promise<number> {
  const deadline = Date.now() + 600_000;
  for (;;) {
    const part = await client.appClient.getMachinePart(partId);
    const at = part.lastUpdated?.getTime() ?? 0;
    if (at > since) return at;
    if (Date.now() > deadline) throw new Error('the canary was not written within 10 minutes');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The time of the first log record after `since` whose message is `msg`. */
function loggedAt(log: string, msg: string, since: number): number | undefined {
  for (const line of log.split('\n')) {
    if (!line.startsWith('{')) continue;
    const r = JSON.parse(line) as Record<string, unknown>;
    const t = Date.parse(String(r.time));
    if (r.msg === msg && t >= since) return t;
  }
  return undefined;
}

async function main(): Promise<void> {
  const size = Number(process.argv[2] ?? '300');
  const commits = Number(process.argv[3] ?? '3');
  const poll = process.argv[4] ?? '1s';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-bench-commit-'));
  // Machines that start modules at once: the rollout's own waits stay short.
  process.env.FLEETFORM_EMULATOR_MODULE_START_TIME = '0';
  process.env.FLEETFORM_EMULATOR_RESOURCE_CONFIGURE_TIME = '0';
  const emulator = await spawnEmulator({ simulateIntervalMs: 500 });
  const { apiKeyId, apiKey, locationId } = emulator.credentials;
  const client = await createServiceClient({
    serviceHost: emulator.url,
    credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey },
  });
  const hook = await receiver();
  const repo = path.join(dir, 'repo');
  fs.mkdirSync(path.join(repo, 'fleet'), { recursive: true });
  git(repo, 'init', '--quiet', '-b', 'main');
  fs.writeFileSync(path.join(repo, 'fleet', 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'node main.js' }));
  fs.writeFileSync(path.join(repo, 'fleet', 'main.js'), MAIN);
  fs.writeFileSync(path.join(repo, '.gitignore'), 'cdktf.out/\n.fleetform/\n');
  const commit = (version: string): number => {
    fs.writeFileSync(path.join(repo, 'fleet', 'fleet.json'), JSON.stringify({ machines: size, version }));
    git(repo, 'add', '-A');
    git(repo, 'commit', '--quiet', '-m', `acme:sensors ${version}`);
    return Date.now();
  };
  commit('~1.2');
  let log = '';
  const child = spawn(
    process.execPath,
    [BIN, 'reconcile', '--repo', repo, '--path', 'fleet', '--poll', poll, '--interval', '10m', '--listen', 'off', '--log-format', 'json'],
    {
      cwd: dir,
      env: {
        ...process.env,
        FLEETFORM_ENDPOINT: emulator.url,
        FLEETFORM_API_KEY: apiKey,
        FLEETFORM_API_KEY_ID: apiKeyId,
        FLEETFORM_WEBHOOK_URL: hook.url,
        NO_COLOR: '1',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  child.stderr.on('data', (d: Buffer) => (log += d.toString()));
  const ended = new Promise<void>((resolve) => child.once('close', () => resolve()));
  try {
    process.stderr.write(`  the reconciler creates ${size} machines...\n`);
    await hook.next('apply-finished', 0);
    const canary = (await client.appClient.listMachines(locationId)).find((m) => m.name === 'picker-1');
    const part = canary ? (await client.appClient.getMachineParts(canary.id))[0] : undefined;
    if (!part) throw new Error('no canary machine');
    const runs: Array<Record<string, number>> = [];
    const versions = ['~1.3', '~1.2'];
    for (let i = 0; i < commits; i++) {
      const since = hook.events.length;
      const committedAt = commit(versions[i % versions.length] ?? '~1.3');
      const writtenAt = await canaryWrittenAt(client, part.id, committedAt);
      await hook.next('apply-finished', since);
      const fetched = loggedAt(log, 'revision fetched', committedAt);
      const loaded = loggedAt(log, 'project loaded', committedAt);
      const applying = loggedAt(log, 'apply started', committedAt);
      const split = (t: number | undefined): number => (t === undefined ? -1 : t - committedAt);
      runs.push({
        commit_to_wave_ms: writtenAt - committedAt,
        fetched_ms: split(fetched),
        loaded_ms: split(loaded),
        apply_started_ms: split(applying),
      });
      process.stderr.write(`  commit ${i + 1}: first wave written ${writtenAt - committedAt} ms after the commit\n`);
    }
    const figures = runs.map((r) => r.commit_to_wave_ms ?? 0);
    const load = os.loadavg()[0] ?? 0;
    process.stdout.write(
      `${JSON.stringify({
        machines: size,
        poll,
        reconcile_commit_to_wave_ms: median(figures),
        runs,
        load_average: r3(load),
        cpu_cores: os.cpus().length,
      })}\n`,
    );
  } finally {
    child.kill('SIGTERM');
    await ended;
    hook.close();
    client.close();
    await emulator.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
