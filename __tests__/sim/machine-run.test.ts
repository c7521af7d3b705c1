/** What a simulated machine runs beyond modules: dependencies, builtins in both forms, maintenance, jobs, remotes. */
import { MachineState, ResourceState } from '../../src/emulator/sim/machine-state';
import { runStandalone } from '../../src/emulator/sim/run-config';
import { RECENT_RUNS, stepJobs, type JobRun } from '../../src/emulator/sim/jobs';
import { isMaintenanceHold } from '../../src/domain/maintenance';

const sensor = { name: 'gate', api: 'rdk:component:sensor', model: 'rdk:builtin:fake' };
const machine = (extra: Record<string, unknown> = {}) => ({
  components: [
    sensor,
    { name: 'cam', type: 'camera', model: 'webcam', attributes: { video_path: '/dev/video0' } },
    { name: 'arm', type: 'arm', namespace: 'rdk', model: 'fake', depends_on: ['cam'] },
  ],
  services: [
    { name: 'dm', type: 'data_manager' },
    { name: 'shell', type: 'shell' },
    { name: 'vision', type: 'vision', model: 'color_detector' },
  ],
  maintenance: { sensor_name: 'rdk:component:sensor/gate', maintenance_allowed_key: 'ok' },
  ...extra,
});

test('builtins in the triplet and the bare forms, services with a type only: all ready, with their API in its parts', () => {
  const { run } = runStandalone(machine());
  expect(run.state).toBe(MachineState.RUNNING);
  expect(run.resources.map((r) => [`${r.namespace}:${r.type}:${r.subtype}/${r.name}`, r.model, r.state])).toEqual([
    ['rdk:component:sensor/gate', 'rdk:builtin:fake', ResourceState.READY],
    ['rdk:component:camera/cam', 'rdk:builtin:webcam', ResourceState.READY],
    ['rdk:component:arm/arm', 'rdk:builtin:fake', ResourceState.READY],
    ['rdk:service:data_manager/dm', 'rdk:builtin:builtin', ResourceState.READY],
    ['rdk:service:shell/shell', 'rdk:builtin:builtin', ResourceState.READY],
    ['rdk:service:vision/vision', 'rdk:builtin:color_detector', ResourceState.READY],
  ]);
});

test('a missing dependency fails its resource alone; a failed one fails its dependents with its reason', () => {
  const config = machine({
    components: [
      { name: 'cam', type: 'camera', model: 'no_such_camera' },
      { name: 'arm', type: 'arm', model: 'fake', depends_on: ['cam'] },
      { name: 'gripper', type: 'gripper', model: 'fake', depends_on: ['missing'] },
      { name: 'base', type: 'base', model: 'fake' },
    ],
  });
  const { run, logs } = runStandalone(config);
  expect(run.state).toBe(MachineState.RUNNING);
  const byName = new Map(run.resources.map((r) => [r.name, r]));
  expect(byName.get('cam')).toMatchObject({
    state: ResourceState.UNHEALTHY,
    error: 'unknown resource type: API "rdk:component:camera" with model "rdk:builtin:no_such_camera" not registered',
  });
  expect(byName.get('arm')?.error).toBe(`dependency "cam" is not available: ${byName.get('cam')?.error}`);
  expect(byName.get('gripper')?.error).toMatch(/^dependency "missing" not found/);
  expect(byName.get('base')?.state).toBe(ResourceState.READY);
  expect(logs.filter((l) => l.level === 'error').map((l) => l.message.split(' failed')[0])).toEqual([
    'resource rdk:component:camera/cam',
    'resource rdk:component:arm/arm',
    'resource rdk:component:gripper/gripper',
  ]);
});

describe('maintenance window', () => {
  const running = runStandalone(machine(), { revision: 'r1' }).run;
  const next = machine({ services: [{ name: 'motion', type: 'motion' }] });

  test('closed: the new revision is held, logged once, the machine keeps running the old one', () => {
    const held = runStandalone(next, {
      previous: running,
      revision: 'r2',
      now: 10_000,
      maxCheckIns: 3,
      health: { maintenanceReading: () => 'closed' },
    });
    expect(held.run.revision).toBe('r1');
    expect(held.run.held).toEqual({ revision: 'r2', reason: 'maintenance sensor rdk:component:sensor/gate reads ok=false' });
    expect(held.logs.filter((l) => isMaintenanceHold(l.message)).map((l) => l.message)).toEqual([
      'reconfiguration blocked by maintenance: maintenance sensor rdk:component:sensor/gate reads ok=false; config revision r2 pending (network, cloud and auth changes still apply)',
    ]);
    // Opening the window applies it at the next check-in.
    const applied = runStandalone(next, { previous: held.run, revision: 'r2', now: 20_000 });
    expect(applied.run.revision).toBe('r2');
    expect(applied.run.held).toBeUndefined();
    expect(applied.run.resources.map((r) => r.name)).toContain('motion');
  });

  test('a sensor that fails to read blocks too (an error line); a sensor the machine does not run allows', () => {
    const erroring = runStandalone(next, { previous: running, revision: 'r2', health: { maintenanceReading: () => 'error' } });
    expect(erroring.run.revision).toBe('r1');
    expect(erroring.logs).toContainEqual(
      expect.objectContaining({ level: 'error', message: expect.stringContaining('could not be read') }),
    );
    const noSensor = runStandalone(
      machine({ components: [], maintenance: { sensor_name: 'rdk:component:sensor/gate', maintenance_allowed_key: 'ok' } }),
      { revision: 'r1' },
    ).run;
    const allowed = runStandalone(next, { previous: noSensor, revision: 'r2', health: { maintenanceReading: () => 'closed' } });
    expect(allowed.run.revision).toBe('r2');
    expect(allowed.logs).toContainEqual(
      expect.objectContaining({
        level: 'error',
        message: 'maintenance sensor rdk:component:sensor/gate not found; reconfiguring is allowed',
      }),
    );
  });

  test('the first start is never held', () => {
    const first = runStandalone(machine(), { revision: 'r1', health: { maintenanceReading: () => 'closed' } });
    expect(first.run.revision).toBe('r1');
  });
});

test('jobs: a job on a missing resource and a job armed to fail log their failure and count it; a continuous one logs only changes', () => {
  const config = machine({
    jobs: [
      { name: 'orphan', schedule: '1s', resource: 'nothing', method: 'GetReadings' },
      { name: 'flaky', schedule: '1s', resource: 'gate', method: 'GetReadings' },
      { name: 'steady', schedule: 'continuous', resource: 'gate', method: 'GetReadings' },
      { name: 'broken', schedule: 'every tuesday', resource: 'gate', method: 'GetReadings' },
    ],
  });
  const { run, logs } = runStandalone(config, { maxCheckIns: 4, intervalMs: 1000, health: { jobFails: (job) => job === 'flaky' } });
  const byName = new Map((run.jobs ?? []).map((j) => [j.name, j]));
  expect(byName.get('orphan')).toMatchObject({ error: 'resource "nothing" not found' });
  expect(byName.get('flaky')).toMatchObject({ error: 'GetReadings returned an error' });
  expect(byName.get('flaky')?.failures).toBe(byName.get('flaky')?.runs);
  expect(byName.get('flaky')?.runs).toBeGreaterThan(0);
  expect(logs.filter((l) => l.message.startsWith('job steady succeeded')).length).toBe(1);
  expect(logs).toContainEqual(
    expect.objectContaining({ level: 'warn', message: expect.stringContaining('job broken: schedule "every tuesday"') }),
  );
  expect(logs).toContainEqual(
    expect.objectContaining({ level: 'error', message: 'job flaky failed: GetReadings on gate: GetReadings returned an error' }),
  );
});

test("jobs keep their newest runs' times by outcome, oldest first, at most RECENT_RUNS of each; a changed job starts afresh", () => {
  const job = { name: 'calibrate', schedule: '1s', resource: 'gate', method: 'DoCommand' };
  const ready = [{ namespace: 'rdk', type: 'component', subtype: 'sensor', name: 'gate', state: ResourceState.READY, error: '' }];
  let jobs: JobRun[] = [];
  // Every third run fails: at 3 s, 6 s, ... (the first check-in only schedules the job).
  for (let s = 0; s <= 40; s += 1) jobs = stepJobs(jobs, [job], ready, s * 1000, { jobFails: () => s % 3 === 0 }, []);
  const [run] = jobs;
  expect(run?.succeededAt).toEqual([26, 28, 29, 31, 32, 34, 35, 37, 38, 40].map((s) => s * 1000));
  expect(run?.failedAt).toEqual([12, 15, 18, 21, 24, 27, 30, 33, 36, 39].map((s) => s * 1000));
  expect(run?.failedAt).toHaveLength(RECENT_RUNS);
  const moved = stepJobs(jobs, [{ ...job, resource: 'other' }], ready, 41_000, {}, []);
  expect(moved[0]?.runs).toBe(0);
  expect([moved[0]?.succeededAt, moved[0]?.failedAt]).toEqual([undefined, undefined]);
});

test('remotes: a reachable remote adds its resources (a dependency can use them); an unreachable one takes only its resources away', () => {
  const config = {
    remotes: [
      { name: 'cell', address: 'cell-main.loc.emulator.fleetform.local', prefix: 'c-' },
      { name: 'gone', address: 'nowhere' },
    ],
    components: [{ name: 'arm', type: 'arm', model: 'fake', depends_on: ['cell:c-cam'] }],
  };
  const reachable = { 'cell-main.loc.emulator.fleetform.local': [{ namespace: 'rdk', type: 'component', subtype: 'camera', name: 'cam' }] };
  const { run, logs } = runStandalone(config, { remoteResources: reachable });
  expect(run.state).toBe(MachineState.RUNNING);
  expect(run.resources.map((r) => [r.name, r.state])).toEqual([
    ['arm', ResourceState.READY],
    ['cell:c-cam', ResourceState.READY],
  ]);
  expect(run.remotes).toEqual([
    { name: 'cell', address: 'cell-main.loc.emulator.fleetform.local', reachable: true, error: '' },
    { name: 'gone', address: 'nowhere', reachable: false, error: 'no machine answers at "nowhere"' },
  ]);
  expect(logs).toContainEqual(
    expect.objectContaining({ level: 'warn', message: expect.stringContaining('remote gone at nowhere is not reachable') }),
  );
  const cut = runStandalone(config, { previous: run, now: 5000 });
  expect(cut.run.resources.map((r) => [r.name, r.state])).toEqual([['arm', ResourceState.UNHEALTHY]]);
  expect(cut.run.resources[0]?.error).toMatch(/^dependency "cell:c-cam" not found/);
});
