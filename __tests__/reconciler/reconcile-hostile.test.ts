/**
 * The reconciler tried as an attacker would, with real parts: a git repository, the
 * emulator, `fleetform reconcile`, webhook receivers (JSON and Slack) and a listener on
 * 127.0.0.1. An app printing secrets leaks none of them; its environment holds none of
 * fleetform's credentials; a commit naming another endpoint is refused with no connection
 * made; a broken repository is announced once while cycles back off and /healthz says
 * degraded; an app that never ends is ended with its child at --app-timeout.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import {
  APP_REQUIRES,
  apiStatus,
  eventLog,
  of,
  projectFolder,
  startReconcile,
  suiteEmulator,
  waitUntil,
  type ReconcileProcess,
} from './fixture';

jest.setTimeout(600_000);

/** How long a cycle that runs the app may take on a loaded machine (each runs ts-node in a child). */
const APP_CYCLE_MS = 120_000;

const suite = suiteEmulator('ff-reconcile-hostile-', {});
const started: ReconcileProcess[] = [];
afterAll(async () => {
  for (const p of started.splice(0)) await p.kill();
});

/** What a commit of the test project does (fleet.json). */
interface Spec {
  readonly mode: 'good' | 'print' | 'throw' | 'loop';
  readonly machine: string;
  readonly version?: string;
  readonly texts?: readonly string[];
  readonly endpoint?: string;
  readonly pidFile?: string;
  /** Text that changes the commit, not the fleet. */
  readonly note?: string;
}

const MAIN = `
${APP_REQUIRES}
const { spawn } = require('node:child_process');
if (spec.mode === 'print') {
  for (const t of spec.texts) { process.stdout.write(t + '\\n'); process.stderr.write('said: ' + t + '\\n'); }
  process.stderr.write('env: ' + JSON.stringify(Object.keys(process.env).sort()) + '\\n');
  process.exit(3);
}
if (spec.mode === 'throw') throw new Error('the app failed with ' + spec.texts.join(' and '));
if (spec.mode === 'loop') {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  require('node:fs').writeFileSync(spec.pidFile, JSON.stringify([process.pid, child.pid]));
  for (;;) {}
}
const app = new App();
const stack = new TerraformStack(app, 'fleet');
new ff.FleetProvider(stack, 'cloud', spec.endpoint ? { endpoint: spec.endpoint } : {});
const m = new ff.Machine(stack, spec.machine, { name: spec.machine });
new ff.Module(m, 'sensors', { moduleId: 'acme:sensors', version: spec.version || '~1.2', env: { SENSORS_API_TOKEN: ff.Secret.fromEnv('SENSORS_API_TOKEN') } });
app.synth();
`;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Fleet Test', '-c', 'user.email=fleet@example.com', '-c', 'commit.gpgsign=false', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();
}

function repository(dir: string): { commit(spec: Spec): string; args(workdir: string): string[]; gitDir: string } {
  const project = projectFolder<Spec>(path.join(dir, 'fleet'), MAIN);
  git(dir, 'init', '--quiet', '-b', 'main');
  writeFileSync(path.join(dir, '.gitignore'), 'cdktf.out/\n.fleetform/\n');
  return {
    gitDir: path.join(dir, '.git'),
    commit(spec) {
      project.write(spec);
      git(dir, 'add', '-A');
      git(dir, 'commit', '--quiet', '-m', spec.mode);
      return git(dir, 'rev-parse', 'HEAD');
    },
    args: (workdir) => ['--repo', dir, '--branch', 'main', '--path', 'fleet', '--workdir', workdir, '--poll', '200ms', '--interval', '1h'],
  };
}

/** A receiver on 127.0.0.1 keeping every body as sent; JSON ones are also read as events. */
async function receiver(): Promise<{ url: string; bodies: string[]; log: ReturnType<typeof eventLog>; close(): Promise<void> }> {
  const bodies: string[] = [];
  const log = eventLog();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      bodies.push(body);
      const parsed = JSON.parse(body) as { type?: string };
      if (parsed.type) log.push(parsed as never);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`,
    bodies,
    log,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** Every form of a secret an app might print: clear, base64, base64url, hex in both cases, URL-encoded, and its first 10 characters. */
function forms(secret: string): string[] {
  const b = Buffer.from(secret);
  return [
    secret,
    b.toString('base64'),
    b.toString('base64url'),
    b.toString('hex'),
    b.toString('hex').toUpperCase(),
    encodeURIComponent(secret),
    secret.slice(0, 10),
  ];
}

/** The starts of those forms that give a secret away: 8 characters in clear, 11 base64 characters, 16 hex digits. */
function giveaways(secret: string): string[] {
  const b = Buffer.from(secret);
  return [
    secret.slice(0, 8),
    b.toString('base64').slice(0, 11),
    b.toString('base64url').slice(0, 11),
    b.toString('hex').slice(0, 16),
    b.toString('hex').toUpperCase().slice(0, 16),
  ];
}

test('an app printing or throwing secrets leaks none of them; its environment holds no credential; a commit naming another endpoint is refused unconnected', async () => {
  const dir = path.join(suite.dir, 'leaks');
  const repo = repository(path.join(dir, 'repo'));
  const token = `dash-${randomBytes(12).toString('hex')}`;
  const moduleSecret = `sensor-${randomBytes(12).toString('hex')}`;
  const { apiKey } = suite.credentials;
  const secrets = [token, apiKey, moduleSecret];
  const json = await receiver();
  const slack = await receiver();
  let connections = 0;
  const elsewhere = net.createServer((s) => {
    connections += 1;
    s.destroy();
  });
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
  const elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as net.AddressInfo).port}`;
  try {
    repo.commit({ mode: 'good', machine: 'leak-1' });
    const env = { ...process.env, ...suite.env, FLEETFORM_DASHBOARD_TOKEN: token, SENSORS_API_TOKEN: moduleSecret };
    const running = await startReconcile(
      dir,
      [...repo.args(path.join(dir, 'checkout')), '--webhook', json.url, '--webhook', `slack:${slack.url}`],
      env,
    );
    started.push(running);
    await json.log.waitFor(of('apply-finished'), 0, APP_CYCLE_MS);

    // The app prints every form of every secret to stdout and stderr, then its environment's names, and exits 3.
    const printing = repo.commit({ mode: 'print', machine: 'leak-1', texts: secrets.flatMap(forms) });
    const printed = await json.log.waitFor((e) => e.type === 'cycle-failed' && e.commit === printing, 0, APP_CYCLE_MS);
    if (printed.type !== 'cycle-failed') throw new Error('not a failure');
    expect(printed.error).toContain('exited with code 3');
    const envLine = /env: (\[.*\])/.exec(printed.error)?.[1];
    expect(envLine).toBeDefined();
    const names = JSON.parse(envLine as string) as string[];
    expect(names).toContain('PATH');
    for (const k of ['FLEETFORM_API_KEY', 'FLEETFORM_API_KEY_ID', 'FLEETFORM_DASHBOARD_TOKEN', 'FLEETFORM_ENDPOINT', 'SENSORS_API_TOKEN'])
      expect(names).not.toContain(k);
    expect(printed.error).toContain('said: [redacted]');

    // The app throws an error holding them.
    const throwing = repo.commit({ mode: 'throw', machine: 'leak-1', texts: secrets.flatMap(forms) });
    const thrown = await json.log.waitFor((e) => e.type === 'cycle-failed' && e.commit === throwing, 0, APP_CYCLE_MS);
    expect(JSON.stringify(thrown)).toContain('the app failed with [redacted]');

    // A commit naming another endpoint than FLEETFORM_ENDPOINT's is refused, and nothing connects there.
    const naming = repo.commit({ mode: 'good', machine: 'leak-1', endpoint: elsewhereUrl });
    const refused = await json.log.waitFor((e) => e.type === 'cycle-failed' && e.commit === naming, 0, APP_CYCLE_MS);
    if (refused.type !== 'cycle-failed') throw new Error('not a failure');
    expect(refused.error).toContain(`the FleetProvider of stack fleet names the endpoint ${elsewhereUrl}, but FLEETFORM_ENDPOINT pins`);
    expect(refused.hint).toContain('--allow-app-endpoint');
    expect(connections).toBe(0);
    await waitUntil('a Slack body for each failure', () => slack.bodies.filter((b) => b.includes('FAILED')).length >= 3);

    // Nothing that left the reconciler holds a secret: its log, both webhooks' bodies, its status and the dashboard's snapshot.
    const auth = { authorization: `Bearer ${token}` };
    const surfaces: Record<string, string> = {
      log: running.log(),
      json: json.bodies.join('\n'),
      slack: slack.bodies.join('\n'),
      status: JSON.stringify(await apiStatus(running.url)),
      snapshot: await (await fetch(`${running.url}/dashboard/api/snapshot`, { headers: auth })).text(),
    };
    expect(surfaces.snapshot).toContain('[redacted]');
    for (const [where, text] of Object.entries(surfaces))
      for (const secret of secrets)
        for (const g of giveaways(secret)) expect({ where, found: text.includes(g) ? g : undefined }).toEqual({ where, found: undefined });
  } finally {
    await json.close();
    await slack.close();
    await new Promise<void>((resolve) => elsewhere.close(() => resolve()));
  }
});

async function health(url: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`${url}/healthz`);
  return { status: res.status, body: await res.text() };
}

/** The loose object file of an object of the repository. */
function looseObject(gitDir: string, id: string): string {
  return path.join(gitDir, 'objects', id.slice(0, 2), id.slice(2));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('a corrupt object and a garbage ref are each announced once while cycles back off and /healthz says degraded; an endless app is ended with its child; fixes apply', async () => {
  const dir = path.join(suite.dir, 'broken');
  const repo = repository(path.join(dir, 'repo'));
  const hook = await receiver();
  try {
    repo.commit({ mode: 'good', machine: 'broken-1' });
    const env = { ...process.env, ...suite.env, SENSORS_API_TOKEN: 'sensor-token-for-broken' };
    const running = await startReconcile(
      dir,
      [...repo.args(path.join(dir, 'checkout')), '--webhook', hook.url, '--app-timeout', '3s'],
      env,
    );
    started.push(running);
    await hook.log.waitFor(of('apply-finished'), 0, APP_CYCLE_MS);
    expect((await health(running.url)).status).toBe(200);

    /** Waits for `atLeast` failures in a row, noting the wait each set before the next cycle: each is longer than the one before. */
    const waitsGrow = async (atLeast: number): Promise<void> => {
      const waits = new Map<number, number>();
      await waitUntil(
        `${atLeast} failures in a row`,
        async () => {
          const st = await apiStatus(running.url);
          const f = st.failing;
          if (f && st.lastCycle && !st.lastCycle.ok) waits.set(f.failures, Date.parse(f.retryAt) - Date.parse(st.lastCycle.at));
          return (f?.failures ?? 0) >= atLeast;
        },
        APP_CYCLE_MS,
        20,
      );
      const seen = [...waits.entries()].sort((a, b) => a[0] - b[0]).map(([, w]) => w);
      expect(seen.length).toBeGreaterThanOrEqual(3);
      for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThan(seen[i - 1] as number);
    };

    // The newest commit's loose object is corrupt: the fetch fails, once announced, with growing waits.
    let mark = hook.log.events.length;
    const good = repo.commit({ mode: 'good', machine: 'broken-1', version: '~1.3' });
    const object = looseObject(repo.gitDir, good);
    const original = readFileSync(object);
    chmodSync(object, 0o644);
    writeFileSync(object, Buffer.from('not a zlib stream'));
    const firstAt = Date.now();
    await waitsGrow(4);
    // Four failures take at least the first three waits (200 + 400 + 800 ms): no flood.
    expect(Date.now() - firstAt).toBeGreaterThanOrEqual(1400);
    expect(hook.log.since(mark, 'cycle-failed')).toHaveLength(1);
    const degraded = await health(running.url);
    expect(degraded.status).toBe(503);
    expect(JSON.parse(degraded.body)).toMatchObject({ status: 'degraded', stage: 'fetch' });
    expect((await fetch(`${running.url}/healthz?live`)).status).toBe(200);

    // The object repaired and a new commit pushed: it applies at once and the reconciler is healthy again.
    writeFileSync(object, original);
    mark = hook.log.events.length;
    repo.commit({ mode: 'good', machine: 'broken-1', version: '~1.3', note: 'repaired' });
    await hook.log.waitFor(of('apply-finished'), mark, APP_CYCLE_MS);
    await waitUntil('healthy again', async () => (await health(running.url)).status === 200);

    // The branch's ref overwritten with garbage: announced once, waits growing, degraded; a good ref mends it.
    mark = hook.log.events.length;
    const ref = path.join(repo.gitDir, 'refs', 'heads', 'main');
    const sha = readFileSync(ref, 'utf8');
    writeFileSync(ref, 'garbage, not a commit id\n');
    await waitsGrow(4);
    expect(hook.log.since(mark, 'cycle-failed')).toHaveLength(1);
    expect((await health(running.url)).status).toBe(503);
    writeFileSync(ref, sha);
    await waitUntil('healthy once the ref is mended', async () => (await health(running.url)).status === 200);
    expect(hook.log.since(mark, 'cycle-failed')).toHaveLength(1);

    // An app that never ends, with a child that never ends, is ended at --app-timeout; the fix pushed later applies.
    mark = hook.log.events.length;
    const pidFile = path.join(dir, 'pids.json');
    const looping = repo.commit({ mode: 'loop', machine: 'broken-1', pidFile });
    const timedOut = await hook.log.waitFor((e) => e.type === 'cycle-failed' && e.commit === looping, mark, APP_CYCLE_MS);
    expect(JSON.stringify(timedOut)).toContain('ran longer than its timeout of 3s');
    const pids = JSON.parse(readFileSync(pidFile, 'utf8')) as number[];
    expect(pids).toHaveLength(2);
    await waitUntil('the app and its child are gone', () => pids.every((p) => !alive(p)), 10_000);
    mark = hook.log.events.length;
    repo.commit({ mode: 'good', machine: 'broken-1', version: '~1.2' });
    const applied = await hook.log.waitFor(of('apply-finished'), mark, APP_CYCLE_MS);
    if (applied.type !== 'apply-finished') throw new Error('not an apply');
    expect(applied.failed).toEqual([]);
    await waitUntil('healthy once the fix is applied', async () => (await health(running.url)).status === 200);
  } finally {
    await hook.close();
  }
});
