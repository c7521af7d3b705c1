/**
 * Failures a rollout tolerates are named wave by wave, and the first wave of several (the
 * canary) stops on any failure unless `canaryMaxFailed` tolerates it: on the emulator's
 * simulated machines, a crashing module version and a machine offline when its wave starts.
 */
import { EmulatorService } from '../../src/api/emulator-control';
import { suiteOnQuickMachines, type EmulatorProject } from './fleet-fixture';
import { settleRolloutFleet, synthRolloutFleet } from './rollout-fixture';

jest.setTimeout(180_000);

const MACHINES = 4;
let p: EmulatorProject;
suiteOnQuickMachines('ff-rollout-canary-', (opened) => (p = opened));

interface StatusJson {
  machines: { machine: string; online: string }[];
  modules: { machine: string; running?: string }[];
}

async function statusUntil(ok: (s: StatusJson) => boolean, what: string, deadlineMs = 30_000): Promise<StatusJson> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const res = await p.runBare('status', '--json');
    if (res.code !== 0) throw new Error(`status failed: ${res.stderr}`);
    const s = JSON.parse(res.stdout) as StatusJson;
    if (ok(s)) return s;
    if (Date.now() > until) throw new Error(`status never showed ${what}; last: ${res.stdout}`);
  }
}

test('a canary that fails stops the rollout although max_failed 1 would tolerate it: the later machines are never written', async () => {
  await settleRolloutFleet(p, MACHINES, '~1.2', '1.2.5');
  const controls = p.client.clientFor(EmulatorService);
  await controls.setMachineFaults({ specs: ['module=acme:sensors@1.3.0:crash'] });
  try {
    synthRolloutFleet(p.outdir, {
      machines: MACHINES,
      policy: '~1.3',
      rollout: { canary: 0, waves: [{ fraction: 1 }], gate: { timeout: '20s', settle: '300ms' }, abort: { maxFailed: 1 } },
    });
    const plan = await p.run('plan');
    expect(plan.stdout).toContain('  wave 1 is the canary: it stops on any failed machine; the limits above apply from wave 2');
    const apply = await p.run('apply', '--auto-approve');
    expect(apply.code).toBe(1);
    expect(apply.stdout).toMatch(/rollout careful: wave 1: picker-1 FAILED/);
    expect(apply.stdout).not.toMatch(/wave 1 passed/);
    expect(apply.stdout).toContain(
      'rollout careful: stopping in wave 1: 1 machine(s) of the canary wave failed, more than canary_max_failed 0',
    );
    expect(apply.stdout).not.toContain('wave 2/2');
    const s = await statusUntil(
      (x) => x.modules.find((m) => m.machine === 'picker-1')?.running === '1.2.5',
      'the canary rolled back to 1.2.5',
    );
    for (const name of ['picker-2', 'picker-3', 'picker-4']) expect(s.modules.find((m) => m.machine === name)?.running).toBe('1.2.5');
  } finally {
    await controls.setMachineFaults({ specs: [] });
  }
});

test('canaryMaxFailed lets a failed canary through, and the wave is said to have failed, not passed', async () => {
  await settleRolloutFleet(p, MACHINES, '~1.2', '1.2.5');
  const controls = p.client.clientFor(EmulatorService);
  await controls.setMachineFaults({ specs: ['module=acme:sensors@1.3.0:crash'] });
  try {
    synthRolloutFleet(p.outdir, {
      machines: MACHINES,
      policy: '~1.3',
      rollout: {
        canary: 0,
        waves: [{ fraction: 1 }],
        gate: { timeout: '20s', settle: '300ms' },
        abort: { maxFailed: 1, canaryMaxFailed: 1 },
      },
    });
    const apply = await p.run('apply', '--auto-approve');
    expect(apply.code).toBe(1);
    expect(apply.stdout).toMatch(
      /rollout careful: wave 1 FAILED on all 1 machine\(s\), tolerated \(canary_max_failed 1\): the rollout goes on in \d/,
    );
    expect(apply.stdout).not.toMatch(/wave 1 passed/);
    // The second wave's machines crash too: the second failure overall is past max_failed 1.
    expect(apply.stdout).toContain('rollout careful: wave 2/2');
    expect(apply.stdout).toMatch(/rollout careful: stopping in wave 2: \d machine\(s\) failed, more than max_failed 1/);
  } finally {
    await controls.setMachineFaults({ specs: [] });
  }
});

test('a wave that goes on past a tolerated failure says so, and so does the summary', async () => {
  await settleRolloutFleet(p, MACHINES, '~1.2', '1.2.5');
  const controls = p.client.clientFor(EmulatorService);
  await controls.setMachineFaults({ specs: ['machine=picker-3:offline'] });
  try {
    await statusUntil((s) => s.machines.find((m) => m.machine === 'picker-3')?.online === 'offline', 'picker-3 offline');
    synthRolloutFleet(p.outdir, {
      machines: MACHINES,
      policy: '~1.3',
      rollout: { canary: 0, waves: [{ fraction: 1 }], gate: { timeout: '20s', settle: '300ms' }, abort: { maxFailed: 1 }, offline: 'fail' },
    });
    const apply = await p.run('apply', '--auto-approve');
    // The rollout went on, but the machine it could not write is a failed change of the apply.
    expect(apply.code).toBe(1);
    expect(apply.stdout).toContain('Apply failed: 1 resource(s) failed, 0 skipped, 3 applied.');
    expect(apply.stdout).toMatch(/rollout careful: wave 1 passed in \d/);
    expect(apply.stdout).toContain('rollout careful: wave 2: picker-3 FAILED: offline when its wave started');
    expect(apply.stdout).toMatch(/rollout careful: wave 2 passed with 1 failure tolerated \(max_failed 1\) in \d/);
    expect(apply.stdout).toMatch(
      /Rollout careful: completed, 2 wave\(s\) in [\d.]+s; wave 2 passed with 1 failure tolerated \(max_failed 1\)\./,
    );
  } finally {
    await controls.setMachineFaults({ specs: [] });
  }
});
