/** The maintenance window as faults arm it, as the gate and the plan read it. */
import { InputError } from '../../src/domain/errors';
import {
  heldByMaintenanceWhy,
  isHeldByMaintenanceWhy,
  maintenanceHoldMessage,
  parseMaintenanceHold,
  unconfiguredMaintenanceSensor,
} from '../../src/domain/maintenance';
import type { MachineStatusReport, RolloutPlan } from '../../src/domain/rollout';
import { MachineFaults, parseMachineFault } from '../../src/emulator/sim/machine-faults';
import type { MachineStatusSource } from '../../src/engine/health/machine-status-source';
import { heldOrJudged } from '../../src/engine/health/wait-healthy';
import { eventLine } from '../../src/engine/rollout/events';
import { rolloutPlanLines } from '../../src/engine/rollout/plan';

test('machine faults for maintenance, remotes and jobs: parsed, and misspellings refused naming the fix', () => {
  expect(parseMachineFault('maintenance=picker-3:closed', 'f')).toMatchObject({
    kind: 'maintenance',
    machine: 'picker-3',
    reading: 'closed',
    percent: 100,
  });
  expect(parseMachineFault('maintenance=picker-3:error:50%', 'f')).toMatchObject({ kind: 'maintenance', reading: 'error', percent: 50 });
  expect(parseMachineFault('remote=arm-cell:unreachable', 'f')).toMatchObject({ kind: 'remote-unreachable', remote: 'arm-cell' });
  expect(parseMachineFault('job=read-window:fail', 'f')).toMatchObject({ kind: 'job-fails', job: 'read-window' });
  const refused = (spec: string): InputError => {
    try {
      parseMachineFault(spec, '--machine-fault');
    } catch (err) {
      if (err instanceof InputError) return err;
    }
    throw new Error(`${spec} was taken`);
  };
  expect(refused('maintenance=picker-3:shut').hint).toBe('write it like maintenance=picker-3:closed');
  expect(refused('maintenance=:closed').message).toMatch(/the machine is missing/);
  expect(refused('remote=arm-cell:down').message).toMatch(/expected the effect "unreachable"/);
  expect(refused('job=:fail').message).toMatch(/the job is missing/);
});

test("a machine's maintenance reading: open unless a fault names it; the last fault naming it wins", () => {
  const m = { machineId: 'id-3', machineName: 'picker-3' };
  const faults = new MachineFaults([parseMachineFault('maintenance=picker-3:closed', 'f')]);
  expect(faults.maintenanceReading(m)).toBe('closed');
  expect(faults.maintenanceReading({ machineId: 'id-4', machineName: 'picker-4' })).toBe('open');
  faults.replace([parseMachineFault('maintenance=picker-3:closed', 'f'), parseMachineFault('maintenance=id-3:open', 'f')]);
  expect(faults.maintenanceReading(m)).toBe('open');
  faults.replace([parseMachineFault('remote=cell:unreachable', 'f'), parseMachineFault('job=j:fail', 'f')]);
  expect(faults.remoteUnreachable(m, ['cell', 'cell.local'])).toBe(true);
  expect(faults.remoteUnreachable(m, ['other'])).toBe(false);
  expect(faults.jobFails(m, 'j')).toBe(true);
});

test('a hold line says which revision it holds and why', () => {
  const line = maintenanceHoldMessage('2026-11-27T10:00:00.000Z', 'maintenance sensor rdk:component:sensor/gate reads ok=false');
  expect(parseMaintenanceHold(line)).toEqual({
    revision: '2026-11-27T10:00:00.000Z',
    reason: 'maintenance sensor rdk:component:sensor/gate reads ok=false',
  });
  expect(parseMaintenanceHold('config revision r received')).toBeUndefined();
});

describe('the gate', () => {
  const status = (revision: string): MachineStatusReport => ({
    revision,
    state: 'running',
    modules: [],
    resources: [{ name: 'gate', api: 'rdk:component:sensor', state: 'ready', revision, error: '' }],
  });
  const source = (hold: string | undefined): MachineStatusSource => ({
    read: () => Promise.reject(new Error('not used')),
    status: () => Promise.reject(new Error('not used')),
    errorLines: () => Promise.resolve([]),
    maintenanceHold: (_part, revision) => Promise.resolve(revision === 'r2' ? hold : undefined),
  });

  test('a machine behind whose window holds the revision waited for is pending "held by maintenance"', async () => {
    const verdict = await heldOrJudged(source('sensor reads ok=false'), 'p', status('r1'), 'r2');
    expect(verdict).toEqual({ health: 'pending', why: 'config pending, held by maintenance (sensor reads ok=false)' });
    expect(isHeldByMaintenanceWhy(heldByMaintenanceWhy('x'))).toBe(true);
  });

  test('without a hold it is merely behind; at the revision the hold is not asked', async () => {
    expect(await heldOrJudged(source(undefined), 'p', status('r1'), 'r2')).toEqual({
      health: 'pending',
      why: 'runs config revision r1, not r2 yet',
    });
    expect((await heldOrJudged(source('held'), 'p', status('r2'), 'r2')).health).toBe('healthy');
  });

  test("the rollout's progress line for a held machine says the wave waits up to the timeout", () => {
    expect(
      eventLine({ type: 'held', rollout: 'careful', wave: 1, machine: 'picker-3', why: 'config pending, held by maintenance (x)' }),
    ).toBe(
      "rollout careful: wave 1: picker-3 waiting: config pending, held by maintenance (x); the wave waits for its window to open, up to the gate's timeout",
    );
  });
});

describe('the plan', () => {
  const sensor = { name: 'gate', api: 'rdk:component:sensor', model: 'rdk:builtin:fake' };
  const maintenance = { sensor_name: 'rdk:component:sensor/gate', maintenance_allowed_key: 'ok' };

  test('a maintenance sensor not configured on the machine is named; one configured (any written form) or brought by fragments is not', () => {
    expect(unconfiguredMaintenanceSensor({ components: [sensor], maintenance })).toBeUndefined();
    expect(unconfiguredMaintenanceSensor({ components: [{ name: 'gate', type: 'sensor', model: 'fake' }], maintenance })).toBeUndefined();
    expect(unconfiguredMaintenanceSensor({ components: [], maintenance })).toBe(
      'maintenance sensor rdk:component:sensor/gate is not configured on it',
    );
    expect(unconfiguredMaintenanceSensor({ components: [sensor], maintenance: { sensor_name: 'gate' } })).toMatch(
      /is not a full resource name/,
    );
    expect(unconfiguredMaintenanceSensor({ fragments: ['f1'], maintenance })).toBeUndefined();
    expect(unconfiguredMaintenanceSensor({ components: [sensor] })).toBeUndefined();
  });

  test("the rollout's plan warns of a wave's machine whose window can never hold the change", () => {
    const plan: RolloutPlan = {
      stack: 'fleet',
      policy: {
        name: 'careful',
        waves: [{ fraction: 1 }],
        gate: { timeout_ms: 60_000, settle_ms: 0 },
        abort: {},
        offline: 'wait',
        on_failure: 'rollback',
      },
      waves: [
        {
          rule: 'fraction 1',
          machines: [
            { address: 'a', name: 'picker-1' },
            { address: 'b', name: 'picker-2', maintenance: 'maintenance sensor rdk:component:sensor/gate is not configured on it' },
          ],
        },
      ],
    };
    expect(rolloutPlanLines([plan])).toContain(
      '  warning: wave 1: picker-2: maintenance sensor rdk:component:sensor/gate is not configured on it, so its maintenance window never holds the change (the machine reconfigures at once)',
    );
  });
});
