import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { EmulatorService } from '../../src/api/emulator-control';
import { openEmulatorProject, quickMachines, type EmulatorProject } from './fleet-fixture';
import { pickerNames, settleRolloutFleet, synthRolloutFleet, type RolloutFleetShape } from './rollout-fixture';

jest.setTimeout(180_000);

const MACHINES = 5;
let p: EmulatorProject;
let restoreEnv: (() => void) | undefined;

beforeAll(async () => {
  // Quick check-ins and starts: a gate settles in a fraction of a second.
  restoreEnv = quickMachines();
  p = await openEmulatorProject('ff-rollout-apply-');
  synthRolloutFleet(p.outdir, { machines: MACHINES, policy: '~1.2' });
  const apply = await p.run('apply', '--auto-approve');
  if (apply.code !== 0) throw new Error(`setup apply failed: ${apply.stdout}${apply.stderr}`);
  await healthy(pickerNames(MACHINES));
});

afterAll(async () => {
  await p?.close();
  restoreEnv?.();
});

interface StatusJson {
  machines: { machine: string; online: string; health: string; partId: string; latestRevision: string }[];
  modules: { machine: string; running?: string }[];
}

async function status(): Promise<StatusJson> {
  const res = await p.runBare('status', '--json');
  if (res.code !== 0) throw new Error(`status failed: ${res.stderr}`);
  return JSON.parse(res.stdout) as StatusJson;
}

/** Waits until `ok` holds of `fleetform status --json`; fails with the last answer after the deadline. */
async function statusUntil(ok: (s: StatusJson) => boolean, what: string, deadlineMs = 30_000): Promise<StatusJson> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const s = await status();
    if (ok(s)) return s;
    if (Date.now() > until) throw new Error(`status never showed ${what}; last: ${JSON.stringify(s)}`);
  }
}

function healthy(names: readonly string[]): Promise<StatusJson> {
  return statusUntil(
    (s) => names.every((n) => s.machines.find((m) => m.machine === n)?.health === 'healthy'),
    `${names.join(', ')} healthy`,
  );
}

const rollout: NonNullable<RolloutFleetShape['rollout']> = {
  canary: 1,
  waves: [{ fraction: 0.5 }, { fraction: 1 }],
  gate: { timeout: '20s', settle: '300ms' },
  abort: { maxFailed: 1, maxFailedFraction: 0.1 },
};

interface Report {
  outcome: string;
  rollouts: {
    outcome: string;
    stoppedAt?: number;
    reason?: string;
    waves: {
      rule: string;
      machines: {
        machine: string;
        result: string;
        problems?: { what: string; error: string }[];
        log?: string[];
        rollback?: { ok: boolean; detail: string };
      }[];
    }[];
  }[];
}

test('a module version armed to crash stops at the canary: one machine changed, then rolled back, the other waves untouched', async () => {
  await settleRolloutFleet(p, MACHINES, '~1.2', '1.2.5');
  const before = await status();
  const controls = p.client.clientFor(EmulatorService);
  await controls.setMachineFaults({ specs: ['module=acme:sensors@1.3.0:crash'] });
  try {
    synthRolloutFleet(p.outdir, { machines: MACHINES, policy: '~1.3', rollout });
    const reportFile = path.join(p.dir, 'report.json');
    const apply = await p.run('apply', '--auto-approve', '--report', reportFile);
    expect(apply.code).toBe(1);
    expect(apply.stdout).toContain('rollout careful: wave 1/3 (machines fleetform_machine.picker-2): 1 machine(s): picker-2');
    expect(apply.stdout).toMatch(
      /rollout careful: wave 1: picker-2 FAILED: unhealthy for \d+ ms; module acme_sensors: module acme_sensors exited with code 1 on start/,
    );
    expect(apply.stdout).toMatch(/log: \S+ rdk\.modmanager: module acme_sensors \(acme:sensors@1\.3\.0\) crashed/);
    expect(apply.stdout).toContain(
      'rollout careful: stopping in wave 1: 1 of 1 machine(s) written failed (100%), more than max_failed_fraction 0.1; rolling the changed machines back',
    );
    expect(apply.stdout).toMatch(/rollout careful: picker-2 rolled back: back on the config it had/);
    expect(apply.stdout).toContain('Rollout careful stopped in wave 1 of 3');
    expect(apply.stdout).toContain('4 machine(s) of later waves were not changed.');
    expect(apply.stdout).not.toContain('wave 2/3');
    // The canary counts once, as failed: written then rolled back, it is not applied.
    expect(apply.stdout).toContain(`Apply failed: 1 resource(s) failed, ${MACHINES - 1} skipped, 0 applied.`);

    const report = JSON.parse(await fs.readFile(reportFile, 'utf8')) as Report;
    expect(report.outcome).toBe('failed');
    expect(report).toMatchObject({ applied: 0, failed: [{ address: 'fleetform_machine.picker-2' }] });
    const r = report.rollouts[0];
    expect(r).toMatchObject({ outcome: 'stopped', stoppedAt: 1 });
    const canary = r?.waves[0]?.machines[0];
    expect(canary).toMatchObject({ machine: 'picker-2', result: 'failed', rollback: { ok: true } });
    expect(canary?.problems?.map((x) => x.what)).toContain('module acme_sensors');
    expect(canary?.log?.[0]).toMatch(/crashed/);
    expect(r?.waves.slice(1).flatMap((w) => w.machines.map((m) => m.result))).toEqual([
      'not reached',
      'not reached',
      'not reached',
      'not reached',
    ]);

    // The fleet is back on its old config: the canary runs 1.2 again, the others were never written.
    const after = await healthy(pickerNames(MACHINES));
    for (const name of pickerNames(MACHINES)) {
      expect(after.modules.find((m) => m.machine === name)?.running).toMatch(/^1\.2\./);
      const was = before.machines.find((m) => m.machine === name)?.latestRevision;
      const now = after.machines.find((m) => m.machine === name)?.latestRevision;
      if (name === 'picker-2') expect(now).not.toBe(was);
      else expect(now).toBe(was);
    }
    // State holds the old config again: the change is still to be made.
    const plan = await p.run('plan');
    expect(plan.stdout).toContain(`Plan: 0 to add, ${MACHINES} to change, 0 to destroy.`);
  } finally {
    await controls.setMachineFaults({ specs: [] });
  }
});

test('a healthy change goes through every wave, with progress per wave', async () => {
  await settleRolloutFleet(p, MACHINES, '~1.2', '1.2.5');
  synthRolloutFleet(p.outdir, { machines: MACHINES, policy: '~1.3', rollout });
  const apply = await p.run('apply', '--auto-approve');
  expect(apply.stderr).toBe('');
  expect(apply.code).toBe(0);
  const lines = apply.stdout.split('\n').filter((l) => l.startsWith('rollout careful:'));
  const order = ['wave 1/3', 'wave 1 passed', 'wave 2/3', 'wave 2 passed', 'wave 3/3', 'wave 3 passed'].map((t) =>
    lines.findIndex((l) => l.includes(t)),
  );
  expect(order.every((i) => i >= 0)).toBe(true);
  expect(order).toEqual([...order].sort((a, b) => a - b));
  for (const name of pickerNames(MACHINES)) expect(apply.stdout).toMatch(new RegExp(`rollout careful: wave \\d: ${name} healthy after`));
  expect(apply.stdout).toMatch(/Rollout careful: completed, 3 wave\(s\) healthy/);
  const s = await healthy(pickerNames(MACHINES));
  for (const name of pickerNames(MACHINES)) expect(s.modules.find((m) => m.machine === name)?.running).toBe('1.3.0');
  expect((await p.run('plan')).stdout).toContain('No changes.');
});

test('an offline machine follows the offline policy: skip leaves its change for a later apply', async () => {
  await settleRolloutFleet(p, MACHINES, '~1.3', '1.3.0');
  const controls = p.client.clientFor(EmulatorService);
  await controls.setMachineFaults({ specs: ['machine=picker-4:offline'] });
  try {
    await statusUntil((s) => s.machines.find((m) => m.machine === 'picker-4')?.online === 'offline', 'picker-4 offline');
    synthRolloutFleet(p.outdir, { machines: MACHINES, policy: '~1.2', rollout: { ...rollout, offline: 'skip' } });
    const apply = await p.run('apply', '--auto-approve');
    expect(apply.code).toBe(0);
    expect(apply.stdout).toMatch(/rollout careful: wave \d: picker-4 skipped: offline when its wave started/);
    expect(apply.stdout).toMatch(/Rollout careful: completed/);
    const plan = await p.run('plan');
    expect(plan.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
    expect(plan.stdout).toContain('wave 1 (fraction 0.5): picker-4');

    // With `fail`, the offline machine counts as failed and the rollout stops.
    synthRolloutFleet(p.outdir, { machines: MACHINES, policy: '~1.2', rollout: { ...rollout, offline: 'fail' } });
    const failing = await p.run('apply', '--auto-approve');
    expect(failing.code).toBe(1);
    expect(failing.stdout).toMatch(/picker-4 FAILED: offline when its wave started/);
  } finally {
    await controls.setMachineFaults({ specs: [] });
  }
});
