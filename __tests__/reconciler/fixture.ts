import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import type { ReconcilerEvent } from '../../src/reconciler/events';

const ROOT = path.resolve(__dirname, '../..');

/** What a commit of the test project declares. */
export interface FleetSpec {
  readonly machines: number;
  readonly policy: string;
  readonly reconcile?: { apply?: string; drift?: string; windows?: string[] };
  /** Every machine's network settings (a bad one makes the commit's config refused). */
  readonly network?: Record<string, unknown>;
  /** The rollout gate's settle time (default 100ms). */
  readonly settle?: string;
  /** State in PostgreSQL (cdktf's PgBackend) instead of local files. */
  readonly pg?: { readonly connStr: string; readonly schemaName: string };
}

/** The app of the test project: machines running acme:sensors, a two-wave rollout (a canary, then the rest), as fleet.json says. */
const MAIN = `
const path = require('node:path');
const { App, PgBackend, TerraformStack } = require(${JSON.stringify(path.join(ROOT, 'node_modules', 'cdktf'))});
const ff = require(${JSON.stringify(path.join(ROOT, 'dist', 'index.js'))});
const spec = require('./fleet.json');
const app = new App();
const stack = new TerraformStack(app, 'fleet');
if (spec.pg) new PgBackend(stack, spec.pg);
new ff.FleetProvider(stack, 'cloud', {});
const machines = [];
for (let i = 1; i <= spec.machines; i++) {
  const name = 'picker-' + i;
  const m = new ff.Machine(stack, name, spec.network ? { name, network: spec.network } : { name });
  const sensors = new ff.Module(m, 'sensors', { moduleId: 'acme:sensors', version: spec.policy });
  const board = new ff.ModularResource(m, 'board', { name: 'board-1', api: 'rdk:component:board', model: sensors.model('pi-board') });
  new ff.ModularResource(m, 'ultrasonic', { name: 'ultrasonic-1', api: 'rdk:component:sensor', model: sensors.model('hc-sr04'), attributes: { board: 'board-1', timeout_ms: 150 }, dependsOn: [board] });
  machines.push(m);
}
new ff.Rollout(stack, 'careful', { waves: [{ machines: [machines[0]] }, { fraction: 1 }], gate: { timeout: '60s', settle: spec.settle || '100ms' }, abort: { maxFailed: 0 } });
if (spec.reconcile) new ff.ReconcilePolicy(stack, 'reconcile', spec.reconcile);
app.synth();
`;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Fleet Test', '-c', 'user.email=fleet@example.com', '-c', 'commit.gpgsign=false', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();
}

/** A real git repository holding a fleetform project in `fleet/`; `commit` writes fleet.json and commits it. */
export function gitProject(dir: string): { repo: string; commit(spec: FleetSpec, message: string): string } {
  mkdirSync(path.join(dir, 'fleet'), { recursive: true });
  git(dir, 'init', '--quiet', '-b', 'main');
  writeFileSync(path.join(dir, 'fleet', 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'node main.js' }));
  writeFileSync(path.join(dir, 'fleet', 'main.js'), MAIN);
  writeFileSync(path.join(dir, '.gitignore'), 'cdktf.out/\n.fleetform/\n');
  return {
    repo: dir,
    commit(spec, message) {
      writeFileSync(path.join(dir, 'fleet', 'fleet.json'), JSON.stringify(spec));
      git(dir, 'add', '-A');
      git(dir, 'commit', '--quiet', '-m', message);
      return git(dir, 'rev-parse', 'HEAD');
    },
  };
}

/** A webhook receiver on 127.0.0.1: every JSON body it gets, and waiting for one. */
export async function webhookReceiver(): Promise<{
  url: string;
  events: ReconcilerEvent[];
  waitFor(match: (e: ReconcilerEvent) => boolean, since?: number, timeoutMs?: number): Promise<ReconcilerEvent>;
  close(): Promise<void>;
}> {
  const events: ReconcilerEvent[] = [];
  const waiters: Array<{ match: (e: ReconcilerEvent) => boolean; resolve: (e: ReconcilerEvent) => void }> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const e = JSON.parse(body) as ReconcilerEvent;
      events.push(e);
      for (const w of [...waiters])
        if (w.match(e)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(e);
        }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    events,
    waitFor(match, since = 0, timeoutMs = 60_000) {
      const found = events.slice(since).find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no matching event within ${timeoutMs} ms; got: ${events.map((e) => e.type).join(', ')}`)),
          timeoutMs,
        );
        waiters.push({
          match,
          resolve: (e) => {
            clearTimeout(timer);
            resolve(e);
          },
        });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const BIN = path.join(ROOT, 'bin', 'fleetform.js');

/** A `fleetform reconcile` process: its server's URL (from its JSON log), its log so far, and stopping it. */
export interface ReconcileProcess {
  readonly child: ChildProcess;
  readonly url: string;
  log(): string;
  /** SIGTERM, and waits for it to end. */
  stop(): Promise<number | null>;
  /** SIGKILL, and waits for it to end. */
  kill(): Promise<void>;
}

/** Starts the real command line with `--listen 127.0.0.1:0 --log-format json`, resolved once it listens. */
export function startReconcile(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<ReconcileProcess> {
  const child = spawn(process.execPath, [BIN, 'reconcile', '--listen', '127.0.0.1:0', '--log-format', 'json', ...args], {
    cwd,
    env: { ...env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const ended = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => (log += d.toString()));
    child.stderr?.on('data', (d: Buffer) => {
      log += d.toString();
      const m = /"msg":"listening","url":"([^"]+)"/.exec(log);
      if (m?.[1])
        resolve({
          child,
          url: m[1],
          log: () => log,
          stop: () => {
            child.kill('SIGTERM');
            return ended;
          },
          kill: async () => {
            child.kill('SIGKILL');
            await ended;
          },
        });
    });
    void ended.then((code) => reject(new Error(`fleetform reconcile ended (${code}) before listening: ${log}`)));
  });
}

/** A deny window that opened five minutes before now (UTC) and lasts three hours: closed for the whole test, whatever the clock says. */
export function denyingNow(): string {
  const opened = new Date(Date.now() - 5 * 60_000);
  return `deny:${opened.getUTCMinutes()} ${opened.getUTCHours()} * * *:3h:UTC`;
}
