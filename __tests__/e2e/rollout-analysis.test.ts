/**
 * A rollout's analysis watches what the machines do once they are healthy: on the emulator's
 * simulated machines (each capturing its `counter` sensor's readings), a module version
 * whose machines stay healthy but capture 30% fewer picks stops at the canary by its
 * analysis and rolls back, naming the metric and the values; the same rollout of a good
 * version completes; a version that logs errors past a log rate's bound, and a change whose
 * job fails on the canary, stop there too. `fleetform rollout status` shows the measurements.
 */
import * as path from 'node:path';
import { App, LocalBackend, TerraformStack } from 'cdktf';
import { Component, FleetProvider, Machine, Metric, Module, Rollout, type AnalysisProps } from '../../src';
import { suiteOnQuickMachines, type EmulatorProject } from './fleet-fixture';
import { pickerNames } from './rollout-fixture';

jest.setTimeout(180_000);

const MACHINES = 3;
let p: EmulatorProject;
suiteOnQuickMachines('ff-rollout-analysis-', (opened) => (p = opened));

const CAPTURE = [
  { type: 'data_manager', attributes: { capture_methods: [{ method: 'Readings', capture_frequency_hz: 20, additional_params: {} }] } },
];

const PICKS_AND_ERRORS: AnalysisProps[] = [
  {
    name: 'picks',
    metric: Metric.reading({ resource: 'counter', method: 'Readings', field: 'picks_per_hour', aggregate: 'mean' }),
    baseline: { minRatio: 0.9 },
    interval: '1s',
    count: 2,
  },
  { name: 'errors', metric: Metric.logRate({ level: 'error' }), max: 5, interval: '1s' },
];

const CALIBRATE = [{ name: 'calibrate', schedule: '200ms', resource: 'counter', method: 'DoCommand', command: { calibrate: true } }];

/**
 * Every machine runs acme:sensors at `policy` with a `counter` sensor whose Readings are
 * captured (and the jobs given); with the rollout and its analysis when asked.
 */
function synth(policy: string, rollout: boolean, analysis: AnalysisProps[] = PICKS_AND_ERRORS, jobs?: typeof CALIBRATE): void {
  const app = new App({ outdir: p.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new LocalBackend(stack, { path: path.join(path.dirname(path.resolve(p.outdir)), 'terraform.fleet.tfstate') });
  new FleetProvider(stack, 'cloud', {});
  const machines = pickerNames(MACHINES).map((name) => {
    const machine = new Machine(stack, name, { name, ...(jobs ? { jobs } : {}) });
    const sensors = new Module(machine, 'sensors', { moduleId: 'acme:sensors', version: policy });
    new Component(machine, 'counter', {
      name: 'counter',
      api: 'rdk:component:sensor',
      model: sensors.model('hc-sr04'),
      serviceConfigs: CAPTURE,
    });
    return machine;
  });
  if (rollout)
    new Rollout(stack, 'careful', {
      waves: [{ machines: [machines[0] as Machine] }, { fraction: 1 }],
      gate: { timeout: '20s', settle: '300ms' },
      analysis,
    });
  app.synth();
}

async function control(...args: string[]): Promise<void> {
  const res = await p.runBare('emulator', ...args);
  if (res.code !== 0) throw new Error(`emulator ${args.join(' ')} failed: ${res.stdout}${res.stderr}`);
}

/** Every machine at 1.2.5, healthy, its counter reading 100 picks an hour. */
async function settle(): Promise<void> {
  synth('~1.2', false);
  const apply = await p.run('apply', '--auto-approve');
  if (apply.code !== 0) throw new Error(`settling failed: ${apply.stdout}${apply.stderr}`);
  for (const name of pickerNames(MACHINES)) await control('sensor-reading', name, 'counter', '{"picks_per_hour": 100}');
  for (;;) {
    const s = JSON.parse((await p.runBare('status', '--json')).stdout) as {
      machines: { machine: string; health: string }[];
      modules: { machine: string; running?: string }[];
    };
    const ok = pickerNames(MACHINES).every(
      (n) => s.modules.find((m) => m.machine === n)?.running === '1.2.5' && s.machines.find((m) => m.machine === n)?.health === 'healthy',
    );
    if (ok) return;
  }
}

test('a version whose machines capture 30% fewer picks stops at the canary by its analysis and rolls back', async () => {
  await settle();
  await control('machine-faults', 'signal=acme:sensors@1.3.0:picks_per_hour*0.7');
  try {
    synth('~1.3', true);
    const plan = await p.run('plan');
    expect(plan.stdout).toContain('then analysis picks: mean of counter.Readings picks_per_hour at least 0.9x the baseline, 2 x 1s');
    expect(plan.stdout).toContain('then analysis errors: log lines at error a minute at most 5, 1 x 1s');
    const apply = await p.run('apply', '--auto-approve');
    expect(apply.code).toBe(1);
    expect(apply.stdout).toContain('rollout careful: wave 1: picker-1 healthy');
    expect(apply.stdout).toMatch(
      /rollout careful: stopping in wave 1: analysis picks failed 1 of 1 measurement\(s\), more than failure_limit 0: mean of counter\.Readings picks_per_hour [67]\d(\.\d+)? \(picker-1 [67]\d(\.\d+)?\) is 0\.[67]\d*x the baseline's (9\d|10\d)(\.\d+)? \(2 machine\(s\)\); the bound is at least 0\.9x the baseline/,
    );
    expect(apply.stdout).not.toContain('wave 2/2');
    expect(apply.stdout).toMatch(/picker-1 rolled back/);
    const status = await p.runBare('rollout', 'status');
    expect(status.stdout).toMatch(/wave 1 analysis picks: FAIL [67]\d/);
  } finally {
    await control('machine-faults');
  }
});

test('the same rollout of a good version passes its analysis in every wave', async () => {
  await settle();
  synth('~1.3', true);
  const apply = await p.run('apply', '--auto-approve');
  expect(apply.stdout).toMatch(/rollout careful: wave 1: analysis picks passed 2 of 2 measurement\(s\)/);
  expect(apply.stdout).toMatch(/wave 2: analysis picks measured [\d.]+: PASS: [^\n]*no machine is left on the old config/);
  expect(apply.stdout).toContain('Rollout careful: completed, 2 wave(s)');
  expect(apply.code).toBe(0);
});

test('a version that logs errors past the bound stops at the canary by its log rate analysis', async () => {
  await settle();
  await control('machine-faults', 'logs=acme:sensors@1.3.0:error:600/min');
  try {
    synth('~1.3', true, [{ name: 'errors', metric: Metric.logRate({ level: 'error' }), max: 5, interval: '1s', count: 2 }]);
    const apply = await p.run('apply', '--auto-approve');
    expect(apply.code).toBe(1);
    expect(apply.stdout).toMatch(
      /rollout careful: stopping in wave 1: analysis errors failed 1 of 1 measurement\(s\), more than failure_limit 0: log lines at error a minute on picker-1 \d{3}(\.\d+)?; the bound is at most 5/,
    );
    expect(apply.stdout).not.toContain('wave 2/2');
    expect(apply.stdout).toMatch(/picker-1 rolled back/);
  } finally {
    await control('machine-faults');
  }
});

test('a change whose job fails on the canary stops there by its job failures analysis', async () => {
  await settle();
  await control('machine-faults', 'job=calibrate:fail');
  try {
    synth('~1.2', true, [{ name: 'calibration', metric: Metric.jobFailures({ job: 'calibrate' }), max: 0, interval: '2s' }], CALIBRATE);
    const apply = await p.run('apply', '--auto-approve');
    expect(apply.code).toBe(1);
    expect(apply.stdout).toMatch(
      /rollout careful: stopping in wave 1: analysis calibration failed 1 of 1 measurement\(s\), more than failure_limit 0: failed runs of job calibrate on picker-1 \d+; the bound is at most 0/,
    );
    expect(apply.stdout).toMatch(/picker-1 rolled back/);
    const status = await p.runBare('rollout', 'status');
    expect(status.stdout).toMatch(/wave 1 analysis calibration: FAIL \d+/);
  } finally {
    await control('machine-faults');
  }
});
