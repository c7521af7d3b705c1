import * as crypto from 'node:crypto';
import { EmulatorService } from '../../src/api/emulator-control';
import { abortReason } from '../../src/domain/rollout';
import { openEmulatorProject, quickMachines, type EmulatorProject } from './fleet-fixture';
import { pickerNames, synthRolloutFleet } from './rollout-fixture';

jest.setTimeout(180_000);

const MACHINES = 10;
const FAULT = 'module=acme:sensors@1.3.0:crash:30%';
let p: EmulatorProject;
let restoreEnv: (() => void) | undefined;

beforeAll(async () => {
  restoreEnv = quickMachines();
  p = await openEmulatorProject('ff-rollout-threshold-');
  synthRolloutFleet(p.outdir, { machines: MACHINES, policy: '~1.2' });
  const apply = await p.run('apply', '--auto-approve');
  if (apply.code !== 0) throw new Error(`setup apply failed: ${apply.stdout}${apply.stderr}`);
});

afterAll(async () => {
  await p?.close();
  restoreEnv?.();
});

/** Whether a fault with a share hits a machine: the emulator's rule (a hash of the spec and the machine id). */
function hit(machineId: string): boolean {
  return crypto.createHash('sha256').update(`${FAULT}\0${machineId}`).digest().readUInt32BE(0) % 100 < 30;
}

test('a fault on a share of the fleet stops the rollout in the wave where the failed share passes the threshold', async () => {
  const state = await p.backend().read('fleet');
  const names = pickerNames(MACHINES);
  const hits = names.map((n) => hit(state.resources[`fleetform_machine.${n}`]?.ids.machine_id ?? ''));
  // Waves of 3, 3 and the rest, in the plan's order (picker-1, picker-10, picker-2, ...).
  const order = [...names].sort();
  const waves = [order.slice(0, 3), order.slice(3, 6), order.slice(6)];
  const abort = { max_failed_fraction: 0.2 };
  let failed = 0;
  let reached = 0;
  let stopsAt: number | undefined;
  for (const [i, wave] of waves.entries()) {
    failed += wave.filter((n) => hits[names.indexOf(n)]).length;
    reached += wave.length;
    if (abortReason(failed, reached, abort)) {
      stopsAt = i + 1;
      break;
    }
  }

  const controls = p.client.clientFor(EmulatorService);
  await controls.setMachineFaults({ specs: [FAULT] });
  try {
    synthRolloutFleet(p.outdir, {
      machines: MACHINES,
      policy: '~1.3',
      rollout: {
        waves: [{ count: 3 }, { count: 3 }, { fraction: 1 }],
        gate: { timeout: '20s', settle: '300ms' },
        abort: { maxFailedFraction: 0.2 },
      },
    });
    const apply = await p.run('apply', '--auto-approve');
    const changed = waves.slice(0, stopsAt ?? waves.length).flat();
    if (stopsAt === undefined) {
      expect(apply.stdout).toMatch(/Rollout careful: completed/);
    } else {
      expect(apply.code).toBe(1);
      expect(apply.stdout).toContain(`Rollout careful stopped in wave ${stopsAt} of 3: `);
      expect(apply.stdout).toMatch(/more than max_failed_fraction 0\.2/);
      for (const n of changed) expect(apply.stdout).toMatch(new RegExp(`rollout careful: ${n} rolled back`));
      expect(apply.stdout).not.toContain(`wave ${stopsAt + 1}/3`);
    }
    // Every wave before the last one reached waited for all its machines: each machine hit failed there.
    const waited = waves.slice(0, (stopsAt ?? waves.length + 1) - 1).flat();
    for (const n of waited.filter((x) => hits[names.indexOf(x)])) expect(apply.stdout).toMatch(new RegExp(`: ${n} FAILED: unhealthy`));
    if (stopsAt !== undefined) expect(apply.stdout).toMatch(new RegExp(`rollout careful: wave ${stopsAt}: picker-\\d+ FAILED: unhealthy`));
  } finally {
    await controls.setMachineFaults({ specs: [] });
  }
});
