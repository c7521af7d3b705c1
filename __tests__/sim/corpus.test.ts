/** Every config of the real-config corpus runs on a simulated machine: each resource up, or failed alone with the machine server's reason. */
import { realConfigs } from '../fixtures/real-configs';
import { MachineState, ResourceState } from '../../src/emulator/sim/machine-state';
import { runStandalone } from '../../src/emulator/sim/run-config';

const corpus = realConfigs();

test('the corpus is there', () => {
  expect(corpus.length).toBeGreaterThan(40);
});

test.each(corpus.map((c) => [c.file, c] as const))(
  '%s runs: the machine runs, every resource is ready or failed with a reason logged',
  (_file, c) => {
    const { run, logs } = runStandalone(c.config);
    expect(run.state).toBe(MachineState.RUNNING);
    for (const r of run.resources) {
      expect([ResourceState.READY, ResourceState.UNHEALTHY]).toContain(r.state);
      if (r.state === ResourceState.UNHEALTHY) {
        expect(r.error).not.toBe('');
        expect(logs.some((l) => l.level === 'error' && l.message.includes(`/${r.name} failed to configure: ${r.error}`))).toBe(true);
      }
    }
  },
);

function named(file: string) {
  const found = corpus.find((c) => c.file.endsWith(file));
  if (!found) throw new Error(`no corpus config ${file}`);
  return found.config;
}

test('rdk fake.json: every builtin fake (both written forms) is ready', () => {
  const { run } = runStandalone(named('viamrobotics__rdk__etc-configs-fake.json'));
  expect(run.resources.length).toBe(20);
  expect(run.resources.filter((r) => r.state !== ResourceState.READY)).toEqual([]);
});

test('a model viam-server no longer has fails alone, with its "not registered" error; the rest of the machine runs', () => {
  const { run } = runStandalone(named('viamrobotics__rdk__robots-configs-nyc-tomato1.json'));
  const gantry = run.resources.find((r) => r.name === 'tomato-gantry');
  expect(gantry).toMatchObject({
    state: ResourceState.UNHEALTHY,
    error: 'unknown resource type: API "rdk:component:gantry" with model "rdk:builtin:simpleoneaxis" not registered',
  });
  expect(run.resources.filter((r) => r.name !== 'tomato-gantry').every((r) => r.state === ResourceState.READY)).toBe(true);
});

test('modular models with no module in the config fail alone', () => {
  const { run } = runStandalone(named('viam-labs__teach-frames__readme.json'));
  expect(run.resources.every((r) => r.state === ResourceState.UNHEALTHY && r.error.includes('not registered'))).toBe(true);
});

test('processes are ignored with the error current viam-server logs', () => {
  const { logs } = runStandalone(named('viamrobotics__rdk__config-data-diff_config_2.json'));
  expect(logs).toContainEqual(
    expect.objectContaining({
      level: 'error',
      message: expect.stringMatching(/^Processes have been deprecated and are no longer supported in viam-server versions v0\.74\.0\+/),
    }),
  );
});

test('rdk fake_jobs.json: jobs are scheduled, then run on their schedules (cron with seconds, durations) and log their outcome', () => {
  const config = named('viamrobotics__rdk__robot-impl-data-fake_jobs.json');
  const first = runStandalone(config, { now: 0 });
  expect(first.run.jobs?.map((j) => j.name)).toEqual(['my_arm_job', 'my_sensor_job', 'my_audioin_job', 'my_audioout_job']);
  expect(first.logs.filter((l) => l.message.includes('scheduled')).length).toBe(4);
  // Ten seconds on: the 5s jobs ran twice, the every-4-seconds cron job twice (at 4 s and 8 s).
  const later = runStandalone(config, { previous: first.run, now: 5000, intervalMs: 5000, maxCheckIns: 2 });
  expect(later.run.jobs?.map((j) => [j.name, j.runs, j.error])).toEqual([
    ['my_arm_job', 2, ''],
    ['my_sensor_job', 2, ''],
    ['my_audioin_job', 2, ''],
    ['my_audioout_job', 2, ''],
  ]);
  expect(later.logs.filter((l) => l.message === 'job my_sensor_job succeeded: GetReadings on movement_sensor1').length).toBe(2);
});
