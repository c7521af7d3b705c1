import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { openEmulatorProject, quickMachines, type EmulatorProject } from './fleet-fixture';
import { pickerNames, settleRolloutFleet, synthRolloutFleet, type RolloutFleetShape } from './rollout-fixture';

jest.setTimeout(180_000);

const MACHINES = 5;
const BIN = path.resolve(__dirname, '../../bin/fleetform.js');
let p: EmulatorProject;
let restoreEnv: (() => void) | undefined;

beforeAll(async () => {
  restoreEnv = quickMachines();
  p = await openEmulatorProject('ff-rollout-resume-');
  synthRolloutFleet(p.outdir, { machines: MACHINES, policy: '~1.2' });
  const apply = await p.run('apply', '--auto-approve');
  if (apply.code !== 0) throw new Error(`setup apply failed: ${apply.stdout}${apply.stderr}`);
});

afterAll(async () => {
  await p?.close();
  restoreEnv?.();
});

// A long settle keeps the rollout waiting at wave 2's gate while the test kills it.
const rollout: NonNullable<RolloutFleetShape['rollout']> = {
  canary: 1,
  waves: [{ fraction: 0.5 }, { fraction: 1 }],
  gate: { timeout: '60s', settle: '1s' },
  abort: { maxFailed: 0 },
};

/** Starts `fleetform apply` and kills it (SIGKILL) once its output shows `text`; resolves with what it printed. */
function applyKilledAt(text: string): Promise<string> {
  const child = spawn(process.execPath, [BIN, 'apply', '--auto-approve', '--synth-out', p.outdir], {
    cwd: p.dir,
    env: { ...process.env, NO_COLOR: '1', ...p.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (stdout.includes(text)) child.kill('SIGKILL');
    });
    child.on('close', (_code, signal) =>
      signal === 'SIGKILL' ? resolve(stdout) : reject(new Error(`apply ended before showing ${JSON.stringify(text)}: ${stdout}`)),
    );
  });
}

async function revisions(): Promise<Map<string, string>> {
  const res = await p.runBare('status', '--json');
  const s = JSON.parse(res.stdout) as { machines: { machine: string; latestRevision: string }[] };
  return new Map(s.machines.map((m) => [m.machine, m.latestRevision]));
}

test('a killed apply resumes at the wave it was in: the same machines, not written again, then the rest', async () => {
  await settleRolloutFleet(p, MACHINES, '~1.2', '1.2.5');
  synthRolloutFleet(p.outdir, { machines: MACHINES, policy: '~1.3', rollout });
  await applyKilledAt('rollout careful: wave 2: 2 config(s) written');
  const atKill = await revisions();

  const status = await p.runBare('rollout', 'status');
  expect(status.code).toBe(0);
  expect(status.stdout).toMatch(/Rollout careful \(stack fleet\): running, wave 2 of 3/);
  expect(status.stdout).toContain('wave 1 (machines fleetform_machine.picker-2): picker-2 healthy');
  expect(status.stdout).toContain('wave 2 (fraction 0.5): picker-1 written, picker-3 written');
  expect(status.stdout).toContain('wave 3 (fraction 1): picker-4 not written, picker-5 not written');

  const plan = await p.run('plan', '--lock-timeout', '0s', '--break-stale-lock');
  expect(plan.stdout).toMatch(/resumes at wave 2: a run started \S+ was interrupted/);

  const resumed = await p.run('apply', '--auto-approve', '--break-stale-lock');
  expect(resumed.stderr).not.toMatch(/error/i);
  expect(resumed.code).toBe(0);
  expect(resumed.stdout).toContain('rollout careful: resuming wave 2: 2 machine(s) written before the interruption are gated again');
  expect(resumed.stdout).not.toContain('wave 1/3');
  expect(resumed.stdout).toMatch(/Rollout careful: completed/);
  const after = await revisions();
  // Waves 1 and 2 were not written again; wave 3 was.
  for (const name of ['picker-1', 'picker-2', 'picker-3']) expect(after.get(name)).toBe(atKill.get(name));
  for (const name of ['picker-4', 'picker-5']) expect(after.get(name)).not.toBe(atKill.get(name));
  expect((await p.runBare('rollout', 'status')).stdout).toMatch(/completed, wave 3 of 3/);
});

test('rollout abort rolls a killed rollout back to the baseline from the part history', async () => {
  await settleRolloutFleet(p, MACHINES, '~1.3', '1.3.0');
  const before = await revisions();
  synthRolloutFleet(p.outdir, { machines: MACHINES, policy: '~1.2', rollout });
  await applyKilledAt('rollout careful: wave 2: 2 config(s) written');
  const locked = await p.runBare('rollout', 'abort', '--stack', 'fleet');
  // The killed apply left its lock: abort says so rather than writing under it, and takes it over when told.
  expect(locked.code).toBe(1);
  expect(locked.stderr).toMatch(/lock/i);
  const again = await p.runBare('rollout', 'abort', '--stack', 'fleet', '--break-stale-lock');
  expect(again.stderr).toMatch(/^(Taking over a stale state lock.*\n)?$/);
  expect(again.code).toBe(0);
  expect(again.stdout).toContain('Rollout careful: 3 machine(s) rolled back.');
  const status = JSON.parse((await p.runBare('status', '--json')).stdout) as {
    modules: { machine: string; running?: string }[];
    machines: { machine: string; health: string }[];
  };
  for (const name of pickerNames(MACHINES)) expect(status.modules.find((m) => m.machine === name)?.running).toBe('1.3.0');
  const after = await revisions();
  for (const name of ['picker-4', 'picker-5']) expect(after.get(name)).toBe(before.get(name));
  expect((await p.runBare('rollout', 'status')).stdout).toMatch(/aborted, wave 2 of 3/);
  // State holds the baseline again: the change is still to be made, on every machine.
  const plan = await p.run('plan');
  expect(plan.stdout).toContain(`Plan: 0 to add, ${MACHINES} to change, 0 to destroy.`);
  expect(plan.stdout).not.toContain('resumes at wave');
});
