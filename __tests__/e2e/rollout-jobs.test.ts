/**
 * A rollout's gate may require jobs to succeed on the new config (`gate.jobsSucceed`): on the
 * emulator's simulated machines, a job faulted to fail stops the rollout at its canary, naming
 * the job; without the fault every wave passes. `fleetform status` shows each job's last run.
 */
import { suiteOnQuickMachines, type EmulatorProject } from './fleet-fixture';
import { settleRolloutFleet, synthRolloutFleet } from './rollout-fixture';

jest.setTimeout(180_000);

const MACHINES = 2;
const JOBS = [{ name: 'calibrate', schedule: '200ms', resource: 'board-1', method: 'DoCommand', command: { calibrate: true } }];
let p: EmulatorProject;
suiteOnQuickMachines('ff-rollout-jobs-', (opened) => (p = opened));

function rollToNewVersion(): void {
  synthRolloutFleet(p.outdir, {
    machines: MACHINES,
    policy: '~1.3',
    jobs: JOBS,
    rollout: { canary: 0, waves: [{ fraction: 1 }], gate: { timeout: '10s', settle: '1s', jobsSucceed: ['calibrate'] } },
  });
}

async function machineFaults(...specs: string[]): Promise<void> {
  const res = await p.runBare('emulator', 'machine-faults', ...specs);
  if (res.code !== 0) throw new Error(`machine-faults failed: ${res.stdout}${res.stderr}`);
}

test('a required job that fails stops the rollout at the canary, naming the job', async () => {
  await settleRolloutFleet(p, MACHINES, '~1.2', '1.2.5', 60_000, { jobs: JOBS });
  await machineFaults('job=calibrate:fail');
  try {
    rollToNewVersion();
    const plan = await p.run('plan');
    expect(plan.stdout).toContain('gate: healthy with job(s) calibrate succeeding on the new config for 1s within 10s');
    const apply = await p.run('apply', '--auto-approve');
    expect(apply.code).toBe(1);
    expect(apply.stdout).toMatch(/rollout careful: wave 1: picker-1 FAILED[^\n]*job calibrate: its last run failed/);
    expect(apply.stdout).toContain('rollout careful: stopping in wave 1');
    expect(apply.stdout).not.toContain('wave 2/2');
    const status = await p.runBare('status');
    expect(status.stdout).toMatch(/picker-1: jobs: calibrate FAILED \d+s ago \(\d+ of last \d+ failed\)/);
  } finally {
    await machineFaults();
  }
});

test('without the fault the required job succeeds on every machine and the rollout passes', async () => {
  await settleRolloutFleet(p, MACHINES, '~1.2', '1.2.5', 60_000, { jobs: JOBS });
  rollToNewVersion();
  const apply = await p.run('apply', '--auto-approve');
  expect(apply.stdout).toContain('rollout careful: wave 1 passed');
  expect(apply.code).toBe(0);
  const json = JSON.parse((await p.runBare('status', '--json')).stdout) as {
    machines: { machine: string; jobs?: { name: string; last: string }[] }[];
  };
  for (const m of json.machines) expect(m.jobs).toEqual([expect.objectContaining({ name: 'calibrate', last: 'succeeded' })]);
});
