import { EmulatorService } from '../../src/api/emulator-control';
import { openEmulatorProject, quickMachines, startFleetform, type EmulatorProject } from './fleet-fixture';
import { pickerNames, settleRolloutFleet, synthRolloutFleet, type RolloutFleetShape } from './rollout-fixture';

jest.setTimeout(180_000);

const MACHINES = 3;
let p: EmulatorProject;
let restoreEnv: (() => void) | undefined;

beforeAll(async () => {
  restoreEnv = quickMachines();
  p = await openEmulatorProject('ff-rollout-offline-');
  synthRolloutFleet(p.outdir, { machines: MACHINES, policy: '~1.2' });
  const apply = await p.run('apply', '--auto-approve');
  if (apply.code !== 0) throw new Error(`setup apply failed: ${apply.stdout}${apply.stderr}`);
});

afterAll(async () => {
  await p?.close();
  restoreEnv?.();
});

interface StatusJson {
  machines: { machine: string; online: string; health: string }[];
  modules: { machine: string; running?: string }[];
}

/** Waits until `ok` holds of `fleetform status --json`; fails with the last answer after the deadline. */
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

const offline = (s: StatusJson): boolean => s.machines.find((m) => m.machine === 'picker-2')?.online === 'offline';

// picker-2 is the canary; the rest follow in a second wave.
const waitRollout = (timeout: string): NonNullable<RolloutFleetShape['rollout']> => ({
  canary: 1,
  waves: [{ fraction: 1 }],
  gate: { timeout, settle: '300ms' },
  offline: 'wait',
});

test('wait: an offline machine holds its wave until it is back online, then the rollout goes on', async () => {
  await settleRolloutFleet(p, MACHINES, '~1.2', '1.2.5');
  const controls = p.client.clientFor(EmulatorService);
  await controls.setMachineFaults({ specs: ['machine=picker-2:offline'] });
  try {
    await statusUntil(offline, 'picker-2 offline');
    synthRolloutFleet(p.outdir, { machines: MACHINES, policy: '~1.3', rollout: waitRollout('60s') });
    const run = startFleetform(p.dir, ['apply', '--auto-approve', '--synth-out', p.outdir], p.env);
    let ended = false;
    void run.result.then(() => (ended = true));
    try {
      await run.stdoutShows('rollout careful: wave 1: 1 config(s) written');
      // The machine is still offline, and the apply still waits for it.
      await statusUntil(offline, 'picker-2 still offline');
      expect(ended).toBe(false);
    } finally {
      await controls.setMachineFaults({ specs: [] });
    }
    const apply = await run.result;
    expect(apply.stderr).toBe('');
    expect(apply.code).toBe(0);
    const lines = apply.stdout.split('\n');
    const healthy = lines.findIndex((l) => /rollout careful: wave 1: picker-2 healthy after/.test(l));
    const second = lines.findIndex((l) => l.includes('rollout careful: wave 2/2'));
    expect(healthy).toBeGreaterThanOrEqual(0);
    expect(second).toBeGreaterThan(healthy);
    expect(apply.stdout).toMatch(/Rollout careful: completed, 2 wave\(s\) healthy/);
    const s = await statusUntil(
      (x) => pickerNames(MACHINES).every((n) => x.machines.find((m) => m.machine === n)?.health === 'healthy'),
      'every machine healthy',
    );
    for (const name of pickerNames(MACHINES)) expect(s.modules.find((m) => m.machine === name)?.running).toBe('1.3.0');
  } finally {
    await controls.setMachineFaults({ specs: [] });
  }
});

test('wait: a machine still offline at the gate timeout fails, named, and the rollout stops before the next wave', async () => {
  await settleRolloutFleet(p, MACHINES, '~1.3', '1.3.0');
  const controls = p.client.clientFor(EmulatorService);
  await controls.setMachineFaults({ specs: ['machine=picker-2:offline'] });
  try {
    await statusUntil(offline, 'picker-2 offline');
    synthRolloutFleet(p.outdir, { machines: MACHINES, policy: '~1.2', rollout: waitRollout('2s') });
    const apply = await p.run('apply', '--auto-approve');
    expect(apply.code).toBe(1);
    expect(apply.stdout).toMatch(
      /rollout careful: wave 1: picker-2 FAILED: not healthy for 300 ms within 2000 ms \(last: offline: [^)]*\)/,
    );
    expect(apply.stdout).toContain('Rollout careful stopped in wave 1 of 2');
    expect(apply.stdout).not.toContain('wave 2/2');
    // The machines of the later wave were never written: they still run 1.3.
    const s = await statusUntil(
      (x) => ['picker-1', 'picker-3'].every((n) => x.machines.find((m) => m.machine === n)?.health === 'healthy'),
      'picker-1 and picker-3 healthy',
    );
    for (const name of ['picker-1', 'picker-3']) expect(s.modules.find((m) => m.machine === name)?.running).toBe('1.3.0');
  } finally {
    await controls.setMachineFaults({ specs: [] });
  }
});
