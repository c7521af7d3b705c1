/**
 * The example project as a newcomer runs it, each command a process of its own against the
 * embedded emulator: machines are healthy at `status` once their time has passed, and after
 * `destroy` the same code applies again, the kept training jobs taken back into state.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

jest.setTimeout(180_000);

const ROOT = path.join(__dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'fleetform.js');
let dir: string;

function fleetform(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '0', FLEETFORM_EMULATOR_CLOCK: 'frozen' };
  for (const k of ['FLEETFORM_ENDPOINT', 'FLEETFORM_API_KEY', 'FLEETFORM_API_KEY_ID']) delete env[k];
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: dir, env, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-example-'));
  for (const entry of ['stacks', 'main.ts', 'cdktf.json', 'tsconfig.json', 'package.json'])
    fs.cpSync(path.join(ROOT, entry), path.join(dir, entry), { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  fs.symlinkSync(path.join(ROOT, 'dist'), path.join(dir, 'dist'));
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The HEALTH column of each machine row of `fleetform status` (its first table). */
function healthOf(stdout: string): string[] {
  return (stdout.split('\n\n')[0] ?? '')
    .split('\n')
    .filter((l) => l.startsWith('warehouse '))
    .map((l) => l.split(/\s+/)[3] ?? '')
    .filter((h) => h !== '');
}

test('apply, status healthy once the machines had the time, destroy, apply again, no changes', async () => {
  const plan0 = await fleetform('plan');
  expect(plan0.code).toBe(0);
  expect(plan0.stdout).toContain('Stack warehouse:');
  const first = await fleetform('apply', '--auto-approve');
  expect(first.stderr).toBe('');
  expect(first.code).toBe(0);
  // The plan just printed is not printed again; a first apply says what to run next.
  expect(first.stdout).toContain('The plan is the one `fleetform plan` printed above');
  expect(first.stdout).not.toContain('will be created');
  expect(first.stdout).toMatch(/\nNext:\n {2}npx fleetform status /);
  expect(healthOf((await fleetform('status')).stdout)).toEqual(Array(5).fill('starting'));

  expect((await fleetform('emulator', 'clock', 'step', '30s')).code).toBe(0);
  const status = await fleetform('status');
  const health = healthOf(status.stdout);
  expect(health).toHaveLength(5);
  expect(health).toEqual(Array(5).fill('healthy'));

  const asked = await fleetform('destroy');
  expect(asked.code).toBe(1);
  expect(asked.stderr).toContain('error: destroy needs confirmation and there is no terminal to ask on');
  expect(asked.stderr).toContain('hint: review the destroy plan above and run: fleetform destroy --auto-approve');
  const destroy = await fleetform('destroy', '--auto-approve');
  expect(destroy.code).toBe(0);
  expect(destroy.stdout).toContain('fleetform_training_job.box-detector will be removed from state (the remote object is kept)');

  const again = await fleetform('apply', '--auto-approve');
  expect(again.code).toBe(0);
  expect(again.stdout).toContain(
    'fleetform_custom_training_job.box-detector-custom is taken back into state: an earlier destroy kept it (retain_on_delete)',
  );
  expect(again.stdout).toContain('fleetform_training_job.box-detector is taken back into state');
  expect(again.stdout).toMatch(/Plan: 8 to add, 0 to change, 0 to destroy, 2 adopted\./);
  const plan = await fleetform('plan', '--detailed-exitcode');
  expect(plan.stdout).toContain('No changes.');
  expect(plan.code).toBe(0);
});
