/**
 * The app's process group: the shell and everything it started end with one signal, when
 * the command stops the app and when fleetform itself is ended by a signal.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startAppProcess } from '../../src/cli/app-process';
import { alive, fileWritten } from './process-watch';

const BIN = join(resolve(__dirname, '../..'), 'bin/fleetform.js');

/** Resolves once `pid` has ended (a SIGKILL takes effect when the process next runs); rejects after a deadline. */
async function ended(pid: number, deadlineMs = 10_000): Promise<boolean> {
  const until = Date.now() + deadlineMs;
  while (alive(pid)) {
    if (Date.now() > until) throw new Error(`process ${pid} still runs after ${deadlineMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fleetform-app-process-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A shell command that starts a process in the background, writes its pid, and waits. */
const TREE = 'sleep 600 & echo $! > grandchild.tmp && mv grandchild.tmp grandchild; wait';

test('stop ends the shell and what it started in the background', async () => {
  const app = startAppProcess(TREE, dir, process.env);
  const grandchild = Number(await fileWritten(dir, 'grandchild'));
  expect(alive(grandchild)).toBe(true);
  app.stop();
  const exit = await app.exit;
  expect(exit.signal).toBe('SIGKILL');
  expect(await ended(grandchild)).toBe(true);
});

test('what the app leaves running when its shell ends is ended with it', async () => {
  const app = startAppProcess(
    'sleep 600 > /dev/null 2>&1 & echo $! > grandchild.tmp && mv grandchild.tmp grandchild; echo done >&2',
    dir,
    process.env,
  );
  const exit = await app.exit;
  expect(exit).toEqual({ code: 0, signal: null, stderr: 'done\n', channel: '' });
  expect(await ended(Number(readFileSync(join(dir, 'grandchild'), 'utf8')))).toBe(true);
});

test('fleetform ended by SIGTERM while the app runs ends the app, and ends by that signal', async () => {
  writeFileSync(join(dir, 'cdktf.json'), JSON.stringify({ app: TREE }));
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of ['FLEETFORM_REPORT_FILE', 'CDKTF_OUTDIR', 'FLEETFORM_ENDPOINT']) delete env[key];
  const cli = spawn(process.execPath, [BIN, 'validate'], { cwd: dir, env, stdio: 'ignore' });
  const cliEnded = new Promise<NodeJS.Signals | null>((done) => cli.on('exit', (_code, signal) => done(signal)));
  const grandchild = Number(await fileWritten(dir, 'grandchild'));
  expect(alive(grandchild)).toBe(true);
  cli.kill('SIGTERM');
  expect(await cliEnded).toBe('SIGTERM');
  expect(await ended(grandchild)).toBe(true);
});
