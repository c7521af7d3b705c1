/**
 * A rollout over machines whose maintenance window is closed, with the real CLI against the
 * emulator's simulated machines: the wave waits for the window (saying so), goes on when it
 * opens mid-rollout (its sensor's reading set through the control service), and fails naming
 * the machine and the maintenance hold at the gate's timeout when it never opens.
 */
import { Struct } from '@bufbuild/protobuf';
import { EmulatorService } from '../../src/api/emulator-control';
import { suiteOnQuickMachines, startFleetform, type EmulatorProject } from './fleet-fixture';
import { pickerNames, synthRolloutFleet, type RolloutFleetShape } from './rollout-fixture';

jest.setTimeout(300_000);

const MACHINES = 3;
let p: EmulatorProject;
suiteOnQuickMachines('ff-rollout-maintenance-', (opened) => (p = opened));

interface StatusJson {
  machines: { machine: string; health: string; runningRevision: string; latestRevision: string; heldByMaintenance?: string }[];
  modules: { machine: string; running?: string }[];
}

/** Waits until `ok` holds of `fleetform status --json`; fails with the last answer after the deadline. */
async function statusUntil(ok: (s: StatusJson) => boolean, what: string, deadlineMs = 60_000): Promise<StatusJson> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const res = await p.runBare('status', '--json');
    if (res.code !== 0) throw new Error(`status failed: ${res.stderr}`);
    const s = JSON.parse(res.stdout) as StatusJson;
    if (ok(s)) return s;
    if (Date.now() > until) throw new Error(`status never showed ${what}; last: ${res.stdout}`);
  }
}

const running =
  (version: string, names = pickerNames(MACHINES)) =>
  (s: StatusJson): boolean =>
    names.every(
      (n) => s.modules.find((m) => m.machine === n)?.running === version && s.machines.find((m) => m.machine === n)?.health === 'healthy',
    );

/** picker-2 held by its maintenance window: still running an older config revision than its latest. */
const held = (s: StatusJson): boolean => {
  const m = s.machines.find((x) => x.machine === 'picker-2');
  return (
    m?.health === 'held' &&
    m.runningRevision !== m.latestRevision &&
    m.heldByMaintenance === 'maintenance sensor rdk:component:sensor/gate reads allowed=false'
  );
};

/** Every machine at `policy` with its maintenance sensor, healthy and running `version` (the window open). */
async function settle(policy: string, version: string): Promise<void> {
  synthRolloutFleet(p.outdir, { machines: MACHINES, policy, maintenanceWindow: true });
  const apply = await p.run('apply', '--auto-approve');
  if (apply.code !== 0) throw new Error(`settling the fleet at ${policy} failed: ${apply.stdout}${apply.stderr}`);
  await statusUntil(running(version), `every machine healthy on ${version}`);
}

// picker-2 is the canary; the rest follow in a second wave.
const rollout = (timeout: string): NonNullable<RolloutFleetShape['rollout']> => ({
  canary: 1,
  waves: [{ fraction: 1 }],
  gate: { timeout, settle: '300ms' },
});

test("a closed window holds the canary: the wave waits, saying so, and goes on once the sensor's reading opens it", async () => {
  await settle('~1.2', '1.2.5');
  const controls = p.client.clientFor(EmulatorService);
  const window = (allowed: boolean | undefined) =>
    controls.setSensorReading({ machine: 'picker-2', sensor: 'gate', readings: Struct.fromJson(allowed === undefined ? {} : { allowed }) });
  await window(false);
  try {
    synthRolloutFleet(p.outdir, { machines: MACHINES, policy: '~1.3', maintenanceWindow: true, rollout: rollout('150s') });
    const run = startFleetform(p.dir, ['apply', '--auto-approve', '--synth-out', p.outdir], p.env);
    let ended = false;
    void run.result.then(() => (ended = true));
    await run.stdoutShows(
      'rollout careful: wave 1: picker-2 waiting: config pending, held by maintenance (maintenance sensor rdk:component:sensor/gate reads allowed=false)',
    );
    // Held, the machine still runs the old version and the rollout has not moved on.
    await statusUntil(held, 'picker-2 held by maintenance');
    expect(ended).toBe(false);
    await window(true);
    const apply = await run.result;
    expect({ code: apply.code, stderr: apply.stderr, stdout: apply.stdout }).toEqual({
      code: 0,
      stderr: '',
      stdout: expect.any(String) as string,
    });
    const lines = apply.stdout.split('\n');
    const waiting = lines.findIndex((l) => l.includes("the wave waits for its window to open, up to the gate's timeout"));
    const healthy = lines.findIndex((l) => /rollout careful: wave 1: picker-2 healthy after/.test(l));
    const second = lines.findIndex((l) => l.includes('rollout careful: wave 2/2'));
    expect(waiting).toBeGreaterThanOrEqual(0);
    expect(healthy).toBeGreaterThan(waiting);
    expect(second).toBeGreaterThan(healthy);
    expect(apply.stdout).toMatch(/Rollout careful: completed, 2 wave\(s\) healthy/);
    await statusUntil(running('1.3.0'), 'every machine healthy on 1.3.0');
  } finally {
    await window(undefined);
  }
});

test('a window that never opens fails the canary by name at the gate timeout, saying it was held by maintenance; the next wave is not written', async () => {
  await settle('~1.3', '1.3.0');
  const controls = p.client.clientFor(EmulatorService);
  await controls.setMachineFaults({ specs: ['maintenance=picker-2:closed'] });
  try {
    synthRolloutFleet(p.outdir, { machines: MACHINES, policy: '~1.2', maintenanceWindow: true, rollout: rollout('2s') });
    const apply = await p.run('apply', '--auto-approve');
    expect(apply.code).toBe(1);
    expect(apply.stdout).toContain('rollout careful: wave 1: picker-2 waiting: config pending, held by maintenance');
    expect(apply.stdout).toMatch(
      /rollout careful: wave 1: picker-2 FAILED: .*within 2000 ms \(last: config pending, held by maintenance \(maintenance sensor rdk:component:sensor\/gate reads allowed=false\)\)/,
    );
    expect(apply.stdout).toContain('Rollout careful stopped in wave 1 of 2');
    expect(apply.stdout).not.toContain('wave 2/2');
    // The later wave was never written; the canary never took the new config.
    await statusUntil(
      (x) => running('1.3.0', ['picker-1', 'picker-3'])(x) && x.modules.find((m) => m.machine === 'picker-2')?.running === '1.3.0',
      'every machine still on 1.3.0',
    );
  } finally {
    await controls.setMachineFaults({ specs: [] });
  }
});
