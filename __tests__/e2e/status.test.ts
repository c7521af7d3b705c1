import { Code } from '@connectrpc/connect';
import { EmulatorService } from '../../src/api/emulator-control';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { loadServices } from '../../src/api/services';
import { openEmulatorProject, quickMachines, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(120_000);

let p: EmulatorProject;
let restoreEnv: (() => void) | undefined;

beforeAll(async () => {
  // The project's emulator runs its machines with quick check-ins and start times.
  restoreEnv = quickMachines();
  p = await openEmulatorProject('ff-status-');
  p.synth({ machines: ['picker-1'] });
  const apply = await p.run('apply', '--auto-approve');
  if (apply.code !== 0) throw new Error(`setup apply failed: ${apply.stdout}${apply.stderr}`);
});

afterAll(async () => {
  await p?.close();
  restoreEnv?.();
});

interface StatusJson {
  machines: {
    machine: string;
    online: string;
    health: string;
    unreachable?: string;
    latestRevision: string;
    runningRevision?: string;
    partId: string;
    modules: { name: string; state: string; consecutiveFailures: number }[];
    resources: { name: string; state: string }[];
  }[];
  modules: { machine: string; running?: string }[];
}

/** Runs `status --json` until `ok` holds of it; fails with the last answer after the deadline. */
async function statusUntil(ok: (s: StatusJson) => boolean, deadlineMs = 30_000): Promise<StatusJson> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const res = await p.runBare('status', '--json');
    if (res.code !== 0) throw new Error(`status failed: ${res.stderr}`);
    const parsed = JSON.parse(res.stdout) as StatusJson;
    if (ok(parsed)) return parsed;
    if (Date.now() > until) throw new Error(`status did not reach the condition; last: ${res.stdout}`);
  }
}

test('status shows each module card; a registry read that fails is an error and exit 1, not a module without versions', async () => {
  const ok = await p.runBare('status');
  expect(ok.stderr).toBe('');
  expect(ok.code).toBe(0);
  expect(ok.stdout).toMatch(/fleet\s+picker-1\s+acme_sensors\s+acme:sensors\s+~1\.2\s+1\.2\.\d+\s+\S+\s+(yes|no)/);

  const controls = p.client.clientFor(EmulatorService);
  await controls.injectFault({ method: 'GetModule', code: Code.Unavailable, message: 'registry offline', count: 100 });
  try {
    const failed = await p.runBare('status');
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('the registry could not be read for module acme:sensors');
    expect(failed.stderr).toContain('registry offline');
    expect(failed.stdout).toMatch(/picker-1\s+acme_sensors\s+acme:sensors\s+~1\.2\s+ERROR\s+ERROR\s+ERROR/);
  } finally {
    await controls.clearFaults({});
  }
});

test('an applied config lands: status shows the machine online, running the latest revision, modules and resources ready', async () => {
  const landed = await statusUntil((s) => s.machines[0]?.health === 'healthy');
  const m = landed.machines[0];
  expect(m).toMatchObject({ machine: 'picker-1', online: 'online' });
  expect(m?.runningRevision).toBe(m?.latestRevision);
  expect(m?.modules).toEqual([expect.objectContaining({ name: 'acme_sensors', state: 'ready', consecutiveFailures: 0 })]);
  expect(m?.resources.map((r) => [r.name, r.state])).toEqual([
    ['board-1', 'ready'],
    ['ultrasonic-1', 'ready'],
  ]);
  expect(landed.modules[0]).toMatchObject({ machine: 'picker-1', running: expect.stringMatching(/^1\.2\./) });

  const text = await p.runBare('status');
  expect(text.stdout).toMatch(/fleet\s+picker-1\s+online\s+healthy\s+latest \(\S+\)\s+1\/1 ready\s+2\/2 ready/);

  // A new config write is behind until the machine ingests it, then lands again.
  p.synth({ machines: ['picker-1'], timeoutMs: 300 });
  const apply = await p.run('apply', '--auto-approve');
  expect(apply.code).toBe(0);
  const again = await statusUntil((s) => s.machines[0]?.health === 'healthy' && s.machines[0].latestRevision !== m?.latestRevision);
  expect(again.machines[0]?.runningRevision).toBe(again.machines[0]?.latestRevision);
});

test('a module armed to crash: status shows the machine unhealthy with the failures, and the crash is in its logs', async () => {
  const controls = p.client.clientFor(EmulatorService);
  await controls.setMachineFaults({ specs: ['module=acme:sensors:crash'] });
  try {
    // A restart makes the machine start its modules again, and they crash.
    const app = p.client.clientFor((await loadServices()).app);
    const { part } = await app.getRobotPart({ id: (await statusUntil(() => true)).machines[0]?.partId ?? '' });
    await app.markPartForRestart({ partId: part?.id ?? '' });
    const sick = await statusUntil(
      (s) => s.machines[0]?.health === 'unhealthy' && (s.machines[0].modules[0]?.consecutiveFailures ?? 0) >= 1,
    );
    expect(sick.machines[0]?.modules[0]).toMatchObject({ state: 'unhealthy' });
    const text = await p.runBare('status');
    expect(text.stdout).toMatch(/picker-1\s+online\s+unhealthy/);
    expect(text.stdout).toMatch(/picker-1: module acme_sensors unhealthy \(\d+ consecutive failures\)/);
    const logs = await app.getRobotPartLogs({ id: part?.id ?? '', levels: ['error'], filter: 'crashed' });
    expect(logs.logs[0]?.message).toMatch(/module acme_sensors \(acme:sensors@1\.2\.\d+\) crashed/);
  } finally {
    await controls.setMachineFaults({ specs: [] });
  }
  await statusUntil((s) => s.machines[0]?.health === 'healthy');
});

test('a machine that stops checking in: status shows it offline and its health unreachable, with the reason', async () => {
  const controls = p.client.clientFor(EmulatorService);
  await controls.setMachineFaults({ specs: ['machine=picker-1:offline'] });
  try {
    const gone = await statusUntil((s) => s.machines[0]?.online === 'offline');
    expect(gone.machines[0]).toMatchObject({ health: 'unreachable', unreachable: expect.stringContaining('is not online') });
    const text = await p.runBare('status');
    expect(text.stdout).toMatch(/picker-1\s+offline \d+s\s+unreachable/);
    expect(text.stdout).toContain('picker-1: status not reachable:');
  } finally {
    await controls.setMachineFaults({ specs: [] });
  }
  await statusUntil((s) => s.machines[0]?.health === 'healthy');
});

test('status --watch refreshes until interrupted', async () => {
  const child = spawn(process.execPath, [path.resolve(__dirname, '../../bin/fleetform.js'), 'status', '--watch', '--interval', '100ms'], {
    cwd: p.dir,
    env: { ...process.env, NO_COLOR: '1', ...p.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  let out = '';
  const refreshes = (): number => (out.match(/^\d{4}-\d\d-\d\dT\S+Z$/gm) ?? []).length;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no second refresh: ${out}`)), 30_000);
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      if (refreshes() >= 2) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  child.kill('SIGINT');
  expect(await exit).toBe(0);
  expect(out).toMatch(/picker-1\s+online/);
});
