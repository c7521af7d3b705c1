/**
 * A rollout's pacing through the real CLI on the emulator: rates and ramps seen in the
 * times the service stored each machine's write, a pause step released by `rollout resume`,
 * a machine the stack creates while the rollout is held, and a schedule's start and stop.
 */
import { openEmulatorProject, quickMachines, type EmulatorProject } from './fleet-fixture';
import { pickerNames, settleRolloutFleet, synthRolloutFleet, type RolloutFleetShape } from './rollout-fixture';

jest.setTimeout(180_000);

let p: EmulatorProject;
let restoreEnv: (() => void) | undefined;

beforeAll(async () => {
  restoreEnv = quickMachines();
  p = await openEmulatorProject('ff-rollout-pacing-');
});

afterAll(async () => {
  await p?.close();
  restoreEnv?.();
});

const gate = { timeout: '30s', settle: '200ms' };

/** When the service last stored each machine's config (its part's last update), by machine name. */
async function writeTimes(names: readonly string[]): Promise<Map<string, number>> {
  const state = await p.backend().read('fleet');
  const out = new Map<string, number>();
  for (const name of names) {
    const partId = state.resources[`fleetform_machine.${name}`]?.ids.part_id;
    if (!partId) throw new Error(`${name} has no part in the state`);
    const part = await p.client.appClient.getMachinePart(partId);
    out.set(name, part.lastUpdated?.getTime() ?? 0);
  }
  return out;
}

/** The gaps (ms) between consecutive writes, in time order. */
function gaps(times: readonly number[]): number[] {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted.slice(1).map((t, i) => t - (sorted[i] ?? t));
}

/** The machines of each wave, as `rollout status` lists them. */
async function wavesOfStatus(): Promise<string[][]> {
  const res = await p.runBare('rollout', 'status');
  return [...res.stdout.matchAll(/^ {2}wave \d+ \([^)]*\)[^:]*: (.*)$/gm)].map((m) =>
    (m[1] ?? '').split(', ').map((entry) => entry.split(' ')[0] ?? ''),
  );
}

/** The module version each machine runs, as `fleetform status` reports it. */
async function running(): Promise<Map<string, string | undefined>> {
  const res = await p.runBare('status', '--json');
  const s = JSON.parse(res.stdout) as { modules: { machine: string; running?: string }[] };
  return new Map(s.modules.map((m) => [m.machine, m.running]));
}

async function runningUntil(names: readonly string[], version: string, deadlineMs = 30_000): Promise<void> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const now = await running();
    if (names.every((n) => now.get(n) === version)) return;
    if (Date.now() > until) throw new Error(`never ran ${version} everywhere: ${JSON.stringify([...now])}`);
  }
}

test('a rate-paced rollout never writes faster than its rate: the service stored each write at least 60s/rate after the one before', async () => {
  await settleRolloutFleet(p, 5, '~1.2', '1.2.5');
  const rollout: NonNullable<RolloutFleetShape['rollout']> = { canary: 0, waves: [{ fraction: 1 }], gate, rate: { perMinute: 120 } };
  synthRolloutFleet(p.outdir, { machines: 5, policy: '~1.3', rollout });
  const plan = await p.run('plan');
  expect(plan.stdout).toContain('wave 2 (fraction 1), at most 120/min:');
  const apply = await p.run('apply', '--auto-approve');
  expect(apply.stderr).toBe('');
  expect(apply.stdout).toMatch(/Rollout careful: completed/);
  const times = await writeTimes(pickerNames(5));
  for (const gap of gaps([...times.values()])) expect(gap).toBeGreaterThanOrEqual(500);
});

test("an exponential ramp: each wave's writes spaced by the rate the passed waves raised it to", async () => {
  await settleRolloutFleet(p, 5, '~1.3', '1.3.0');
  const rollout: NonNullable<RolloutFleetShape['rollout']> = {
    canary: 0,
    waves: [{ count: 2 }, { fraction: 1 }],
    gate,
    rate: { ramp: { start: 60, factor: 2, ceiling: 240 } },
  };
  synthRolloutFleet(p.outdir, { machines: 5, policy: '~1.2', rollout });
  const plan = await p.run('plan');
  expect(plan.stdout).toContain('wave 2 (count 2), ramp at 120/min (from 60/min x2 each passed wave, up to 240/min):');
  expect(plan.stdout).toContain('wave 3 (fraction 1), ramp at 240/min');
  const apply = await p.run('apply', '--auto-approve');
  expect(apply.stdout).toMatch(/Rollout careful: completed/);
  const times = await writeTimes(pickerNames(5));
  const waves = await wavesOfStatus();
  expect(waves.map((w) => w.length)).toEqual([1, 2, 2]);
  const within = (wave: readonly string[]): number[] => gaps(wave.map((n) => times.get(n) ?? 0));
  for (const gap of within(waves[1] ?? [])) expect(gap).toBeGreaterThanOrEqual(500);
  for (const gap of within(waves[2] ?? [])) expect(gap).toBeGreaterThanOrEqual(250);
  // Each wave starts after the one before: the canary's write comes first.
  const canary = times.get(waves[0]?.[0] ?? '') ?? 0;
  for (const name of [...(waves[1] ?? []), ...(waves[2] ?? [])]) expect(times.get(name) ?? 0).toBeGreaterThan(canary);
});

test('a pause step holds the rollout until `rollout resume`; a machine the stack creates meanwhile joins the wave it goes on at', async () => {
  await settleRolloutFleet(p, 4, '~1.2', '1.2.5');
  const rollout: NonNullable<RolloutFleetShape['rollout']> = { canary: 0, waves: [{ pause: true }, { fraction: 1 }], gate };
  synthRolloutFleet(p.outdir, { machines: 4, policy: '~1.3', rollout });
  const plan = await p.run('plan');
  expect(plan.stdout).toContain('pause: the rollout stops here until released (`fleetform rollout resume fleet`)');
  const first = await p.run('apply', '--auto-approve');
  expect(first.code).toBe(0);
  expect(first.stdout).toContain('Rollout careful paused at wave 2 of 2: a pause step holds it before wave 2');
  expect(first.stdout).toContain('release it with `fleetform rollout resume fleet`');
  await runningUntil(['picker-1'], '1.3.0');
  const held = await writeTimes(pickerNames(4));

  const heldPlan = await p.run('plan');
  expect(heldPlan.stdout).toMatch(
    /paused at wave 2 \(a run started \S+; its waves, machines and baselines are kept\): the apply writes nothing of its waves until `fleetform rollout resume fleet` releases it/,
  );
  const status = await p.runBare('rollout', 'status');
  expect(status.stdout).toMatch(/Rollout careful \(stack fleet\): paused, wave 2 of 2/);
  expect(status.stdout).toMatch(
    /paused by a pause step before wave 2 since \S+: release it with `fleetform rollout resume fleet`, then apply/,
  );

  // The stack creates picker-5 while the rollout is held: it joins wave 2, and is written with it, not before.
  synthRolloutFleet(p.outdir, { machines: 5, policy: '~1.3', rollout });
  const again = await p.run('apply', '--auto-approve');
  expect(again.stdout).toContain('rollout careful: picker-5 joined while the rollout runs: it goes in wave 2');
  expect(again.stdout).toContain('Rollout careful paused at wave 2 of 2');
  expect(await writeTimes(pickerNames(4))).toEqual(held);
  expect((await p.backend().read('fleet')).resources['fleetform_machine.picker-5']).toBeUndefined();

  const resume = await p.runBare('rollout', 'resume', 'fleet');
  expect(resume.stderr).toBe('');
  expect(resume.code).toBe(0);
  expect(resume.stdout).toContain('Rollout careful (stack fleet) released at wave 2 of 2: `fleetform apply` goes on from there.');
  const twice = await p.runBare('rollout', 'resume', 'fleet');
  expect(twice.code).toBe(1);
  expect(twice.stderr).toContain('nothing to resume: its rollout careful is running, not paused');

  const done = await p.run('apply', '--auto-approve');
  expect(done.stderr).toBe('');
  expect(done.stdout).toMatch(/Rollout careful: completed/);
  await runningUntil(pickerNames(5), '1.3.0');
  const after = await p.runBare('rollout', 'status');
  expect(after.stdout).toMatch(/completed, wave 2 of 2/);
  expect(after.stdout).toMatch(/wave 2 \(fraction 1\): .*picker-5 healthy \(joined late, /);
});

test('a schedule: nothing is written before notBefore; at stopBy the rollout pauses until released, then completes', async () => {
  await settleRolloutFleet(p, 4, '~1.2', '1.2.5');
  // The writes start at notBefore, one every 2 s; stopBy 5 s later lets one to three through.
  // notBefore leaves the three commands before the waiting apply time to run on loaded cores.
  const notBefore = Date.now() + 25_000;
  const stopBy = notBefore + 5000;
  const rollout: NonNullable<RolloutFleetShape['rollout']> = {
    waves: [{ fraction: 1 }],
    gate,
    rate: { perMinute: 30 },
    schedule: { notBefore: new Date(notBefore), stopBy: new Date(stopBy), atStop: 'pause' },
  };
  synthRolloutFleet(p.outdir, { machines: 4, policy: '~1.3', rollout });
  const before = await writeTimes(pickerNames(4));

  const leftWaiting = await p.run('apply', '--auto-approve', '--no-wait-for-schedule');
  expect(leftWaiting.code).toBe(0);
  expect(leftWaiting.stdout).toContain(`its schedule starts it at ${new Date(notBefore).toISOString()}`);
  expect(await writeTimes(pickerNames(4))).toEqual(before);
  const waiting = await p.runBare('rollout', 'status');
  expect(waiting.stdout).toMatch(/Rollout careful \(stack fleet\): waiting, wave 1 of 1/);
  expect(waiting.stdout).toContain(`waiting for its schedule: wave 1 starts at ${new Date(notBefore).toISOString()}`);
  expect((await p.run('plan')).stdout).toContain("waiting for its schedule's start at wave 1 (a run started ");

  // This apply waits for the start, writes at the rate, and pauses at stopBy.
  const stopped = await p.run('apply', '--auto-approve');
  expect(stopped.code).toBe(0);
  expect(stopped.stdout).toContain(`waiting for its schedule: wave 1 starts at ${new Date(notBefore).toISOString()}`);
  expect(stopped.stdout).toContain(`the schedule's stopBy ${new Date(stopBy).toISOString()} passed (atStop pause)`);
  const cut = await writeTimes(pickerNames(4));
  const written = pickerNames(4).filter((n) => cut.get(n) !== before.get(n));
  expect(written.length).toBeGreaterThanOrEqual(1);
  expect(written.length).toBeLessThan(4);
  for (const n of written) expect(cut.get(n) ?? 0).toBeGreaterThanOrEqual(notBefore);
  for (const n of written) expect(cut.get(n) ?? 0).toBeLessThan(stopBy);
  const paused = await p.runBare('rollout', 'status');
  expect(paused.stdout).toMatch(/Rollout careful \(stack fleet\): paused, wave 1 of 1/);
  expect(paused.stdout).toContain(`paused at wave 1 by its schedule's stop (${new Date(stopBy).toISOString()})`);

  expect((await p.runBare('rollout', 'resume', 'fleet')).code).toBe(0);
  const done = await p.run('apply', '--auto-approve');
  expect(done.stdout).toMatch(/Rollout careful: completed/);
  await runningUntil(pickerNames(4), '1.3.0');
  const end = await writeTimes(pickerNames(4));
  // What was written before the stop was not written again.
  for (const n of written) expect(end.get(n)).toBe(cut.get(n));
});

/** A rollout of 4 machines whose writes start at `notBefore`, one a second, and whose schedule stops 1.5 s later. */
function stoppingRollout(
  waves: NonNullable<RolloutFleetShape['rollout']>['waves'],
  atStop: 'finish-wave' | 'rollback',
): { rollout: NonNullable<RolloutFleetShape['rollout']>; notBefore: number; stopBy: number } {
  // The apply waits for notBefore (far enough for it to start first on loaded cores); stopBy
  // lets the first two writes through, not a third.
  const notBefore = Date.now() + 20_000;
  const stopBy = notBefore + 1500;
  const schedule = { notBefore: new Date(notBefore), stopBy: new Date(stopBy), atStop };
  return { rollout: { waves, gate, rate: { perMinute: 60 }, schedule }, notBefore, stopBy };
}

test('atStop finish-wave: the wave the stop came in is written and gated to its end, then the rollout pauses before the next', async () => {
  await settleRolloutFleet(p, 4, '~1.2', '1.2.5');
  const before = await writeTimes(pickerNames(4));
  const { rollout, stopBy } = stoppingRollout([{ count: 3 }, { fraction: 1 }], 'finish-wave');
  synthRolloutFleet(p.outdir, { machines: 4, policy: '~1.3', rollout });
  const stopped = await p.run('apply', '--auto-approve');
  expect(stopped.code).toBe(0);
  expect(stopped.stdout).toContain('rollout careful: wave 1 passed');
  expect(stopped.stdout).toContain(`the schedule's stopBy ${new Date(stopBy).toISOString()} passed (atStop finish-wave)`);
  expect(stopped.stdout).toContain('Rollout careful paused at wave 2 of 2');
  const cut = await writeTimes(pickerNames(4));
  const wave1 = (await wavesOfStatus())[0] ?? [];
  expect(wave1).toHaveLength(3);
  // The wave went on past its stop: its last write came after stopBy; the next wave's machine was not written.
  expect(Math.max(...wave1.map((n) => cut.get(n) ?? 0))).toBeGreaterThanOrEqual(stopBy);
  const rest = pickerNames(4).filter((n) => !wave1.includes(n));
  for (const n of rest) expect(cut.get(n)).toBe(before.get(n));
  expect((await p.runBare('rollout', 'status')).stdout).toMatch(/Rollout careful \(stack fleet\): paused, wave 2 of 2/);

  expect((await p.runBare('rollout', 'resume', 'fleet')).code).toBe(0);
  const done = await p.run('apply', '--auto-approve');
  expect(done.stdout).toMatch(/Rollout careful: completed/);
  await runningUntil(pickerNames(4), '1.3.0');
});

test('atStop rollback: at the stop the rollout stops and writes back every machine it wrote; the rest are never written', async () => {
  await settleRolloutFleet(p, 4, '~1.2', '1.2.5');
  const before = await writeTimes(pickerNames(4));
  const { rollout, stopBy } = stoppingRollout([{ fraction: 1 }], 'rollback');
  synthRolloutFleet(p.outdir, { machines: 4, policy: '~1.3', rollout });
  const stopped = await p.run('apply', '--auto-approve');
  expect(stopped.stdout).toContain(`the schedule's stopBy ${new Date(stopBy).toISOString()} passed (atStop rollback)`);
  expect(stopped.stdout).toMatch(/Rollout careful stopped in wave 1 of 1/);
  const rolledBack = [...stopped.stdout.matchAll(/rollout careful: (picker-\d) rolled back: back on the config it had/g)].map((m) => m[1]);
  expect(rolledBack.length).toBeGreaterThanOrEqual(1);
  expect(rolledBack.length).toBeLessThan(4);
  const after = await writeTimes(pickerNames(4));
  for (const n of pickerNames(4).filter((x) => !rolledBack.includes(x))) expect(after.get(n)).toBe(before.get(n));
  await runningUntil(pickerNames(4), '1.2.5');
  expect((await p.runBare('rollout', 'status')).stdout).toMatch(/Rollout careful \(stack fleet\): stopped, wave 1 of 1/);
});
