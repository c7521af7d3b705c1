/**
 * Through the command line on the emulator: a version deprecated with `fleetform emulator
 * module-version` is skipped by the machines' policy, in the plan (one line saying why) and
 * on the simulated machine after apply.
 */
import { openEmulatorProject, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(180_000);

let p: EmulatorProject;

beforeAll(async () => {
  p = await openEmulatorProject('ff-module-skips-');
});

afterAll(async () => {
  await p?.close();
});

test('a deprecated version is skipped in the plan, saying why, and on the machine', async () => {
  // Seeded acme:sensors: 1.1.0, 1.2.0, 1.2.3, 1.2.4, 1.2.5, 1.3.0, 2.0.0-rc.1; the policy is ~1.2.
  const deprecated = await p.runBare('emulator', 'module-version', 'acme:sensors', '1.2.5', '--deprecate', 'crashes on start');
  expect(deprecated.stderr).toBe('');
  expect(deprecated.stdout).toContain('acme:sensors 1.2.5: deprecated (crashes on start)');
  p.synth({ machines: ['skipper'] });
  const plan = await p.run('plan');
  expect(plan.code).toBe(0);
  expect(plan.stdout).toContain('1.2.5 skipped: deprecated (crashes on start)');
  expect(plan.stdout).toContain('runs 1.2.4');
  expect((await p.run('apply', '--auto-approve')).code).toBe(0);
  const status = await p.runBare('emulator', 'status', '--json');
  const cards = JSON.parse(status.stdout) as Array<{ machineName: string; deployedVersion: string }>;
  expect(cards.filter((c) => c.machineName === 'skipper').map((c) => c.deployedVersion)).toEqual(['1.2.4']);
});
