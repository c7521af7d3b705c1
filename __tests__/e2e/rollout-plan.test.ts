import { openEmulatorProject, type EmulatorProject } from './fleet-fixture';
import { synthRolloutFleet } from './rollout-fixture';

jest.setTimeout(120_000);

let p: EmulatorProject;

beforeAll(async () => {
  p = await openEmulatorProject('ff-rollout-plan-');
  synthRolloutFleet(p.outdir, { machines: 5, policy: '~1.2' });
  const apply = await p.run('apply', '--auto-approve');
  if (apply.code !== 0) throw new Error(`setup apply failed: ${apply.stdout}${apply.stderr}`);
});

afterAll(async () => {
  await p?.close();
});

const rollout = {
  canary: 1,
  waves: [{ fraction: 0.5 }, { fraction: 1 }],
  gate: { timeout: '2m', settle: '30s' },
  abort: { maxFailed: 1, maxFailedFraction: 0.1 },
};

test('a plan shows the rollout: which machines go in which wave, in order, and the gate', async () => {
  synthRolloutFleet(p.outdir, { machines: 5, policy: '~1.3', rollout });
  const plan = await p.run('plan');
  expect(plan.stderr).toBe('');
  expect(plan.code).toBe(0);
  expect(plan.stdout).toContain('Rollout careful (stack fleet): 5 machine update(s) in 3 wave(s)');
  expect(plan.stdout).toContain(
    '  gate: healthy for 30s within 120s; stops on more than 1 failed or more than 10% of written machines failed, then rolls back; offline machines: wait',
  );
  expect(plan.stdout).toContain(
    '  wave 1 (machines fleetform_machine.picker-2): picker-2\n  wave 2 (fraction 0.5): picker-1, picker-3\n  wave 3 (fraction 1): picker-4, picker-5\n',
  );
  expect(plan.stdout.indexOf('Rollout careful')).toBeLessThan(plan.stdout.indexOf('Plan: 0 to add, 5 to change'));

  const json = JSON.parse((await p.run('plan', '--json')).stdout) as {
    rollouts: { stack: string; policy: { name: string }; waves: { rule: string; machines: { name: string }[] }[] }[];
  };
  expect(json.rollouts).toHaveLength(1);
  expect(json.rollouts[0]?.waves.map((w) => w.machines.map((m) => m.name))).toEqual([
    ['picker-2'],
    ['picker-1', 'picker-3'],
    ['picker-4', 'picker-5'],
  ]);
});

test('without machine updates a plan shows no rollout', async () => {
  synthRolloutFleet(p.outdir, { machines: 5, policy: '~1.2', rollout });
  const plan = await p.run('plan');
  expect(plan.code).toBe(0);
  expect(plan.stdout).not.toContain('Rollout careful');
  const json = JSON.parse((await p.run('plan', '--json')).stdout) as { rollouts?: unknown };
  expect(json.rollouts).toBeUndefined();
});
