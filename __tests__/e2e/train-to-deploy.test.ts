import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { Dataset, FleetProvider, Machine, MlModel, ModelType, ModularResource, Module, TrainingJob } from '../../src';
import { EmulatorService } from '../../src/api/emulator-control';
import type { ClockMode } from '../../src/emulator';
import { TrainingStatus } from '../../src/domain';
import { openEmulatorProject, submittedTrainingJob, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(120_000);

const QUICK = {
  FLEETFORM_EMULATOR_CHECK_IN_INTERVAL: '50',
  FLEETFORM_EMULATOR_MODULE_START_TIME: '100',
  FLEETFORM_EMULATOR_RESOURCE_CONFIGURE_TIME: '0',
  FLEETFORM_EMULATOR_TRAINING_DURATION: '2s',
};

let p: EmulatorProject;

async function open(clock: ClockMode): Promise<void> {
  Object.assign(process.env, QUICK);
  p = await openEmulatorProject('ff-train-deploy-', { clock });
}

afterEach(async () => {
  await p?.close();
  for (const key of Object.keys(QUICK)) delete process.env[key];
});

/** Training feeding deployment: a job trains box-detector@3 and two inspectors deploy it to their mlmodel service. */
function synthTrainAndDeploy(): void {
  const app = new App({ outdir: p.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new FleetProvider(stack, 'cloud', {});
  const boxes = new Dataset(stack, 'boxes', { name: 'boxes' });
  const job = new TrainingJob(stack, 'box-detector', {
    dataset: boxes,
    modelName: 'box-detector',
    modelVersion: '3',
    modelType: ModelType.OBJECT_DETECTION,
    tags: ['box'],
  });
  for (const name of ['inspector-1', 'inspector-2']) {
    const inspector = new Machine(stack, name, { name });
    const tflite = new Module(inspector, 'tflite', { moduleId: 'acme:sensors', version: '~1.2' });
    const model = inspector.deployModel(job, { name: 'box-detector' });
    new ModularResource(inspector, 'mlmodel', {
      name: 'mlmodel',
      api: 'rdk:service:mlmodel',
      model: tflite.model('pi-board'),
      attributes: { model_path: `${model.path}/model.tflite` },
    });
  }
  app.synth();
}

async function storedPackages(name: string): Promise<unknown> {
  const entry = (await p.backend().read('fleet')).resources[`fleetform_machine.${name}`];
  if (!entry?.ids.part_id) throw new Error(`no part for ${name} in state`);
  return (await p.client.appClient.getMachinePart(entry.ids.part_id)).config.packages;
}

async function jobId(): Promise<string> {
  const id = (await p.backend().read('fleet')).resources['fleetform_training_job.box-detector']?.ids.id;
  if (!id) throw new Error('no training job in state');
  return id;
}

interface PlanJson {
  resource_changes: { address: string; notes: { message: string; value?: unknown }[] }[];
}

interface StatusJson {
  machines: { machine: string; health: string; packages?: { name: string; version: string; state: string }[] }[];
  trainingJobs?: { address: string; model: string; status: string; trainingSeconds?: number }[];
}

async function statusUntil(ok: (s: StatusJson) => boolean, deadlineMs = 30_000): Promise<StatusJson> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const res = await p.runBare('status', '--json');
    if (res.code !== 0) throw new Error(`status failed: ${res.stderr}`);
    const parsed = JSON.parse(res.stdout) as StatusJson;
    if (ok(parsed)) return parsed;
    if (Date.now() > until) throw new Error(`status did not reach the condition; last: ${res.stdout}`);
  }
}

test('apply --wait-for-training submits the job, waits for it, deploys the model to both machines, and status shows it READY on both', async () => {
  await open('running');
  synthTrainAndDeploy();
  const plan = await p.run('plan');
  expect(plan.code).toBe(0);
  expect(plan.stdout).toContain('waits for the training job (or upload) this apply makes');

  const apply = await p.run('apply', '--auto-approve', '--wait-for-training', '1m');
  expect(apply.stdout + apply.stderr).toContain('Apply complete!');
  expect(apply.code).toBe(0);
  // The job's create waits for it to end, saying how it goes: the machines then find the model in the registry.
  expect(apply.stderr).toMatch(/training job \S+ for model box-detector@3 is TRAINING_STATUS_(PENDING|IN_PROGRESS) \(\d+s of 60s\)/);
  const organizationId = p.credentials.organizationId;
  for (const name of ['inspector-1', 'inspector-2']) {
    expect(await storedPackages(name)).toEqual([
      { name: 'box-detector', package: `${organizationId}/box-detector`, version: '3', type: 'ml_model' },
    ]);
  }
  const landed = await statusUntil((s) => s.machines.length === 2 && s.machines.every((m) => m.health === 'healthy'));
  for (const m of landed.machines)
    expect(m.packages).toEqual([expect.objectContaining({ name: 'box-detector', version: '3', state: 'ready' })]);
  expect(landed.trainingJobs).toEqual([
    expect.objectContaining({
      address: 'fleetform_training_job.box-detector',
      model: 'box-detector@3',
      status: 'completed',
      trainingSeconds: 2,
    }),
  ]);
  const text = await p.runBare('status');
  expect(text.stdout).toMatch(/fleet\s+fleetform_training_job\.box-detector\s+box-detector@3\s+completed\s+2s/);
  expect((await p.run('plan', '--detailed-exitcode')).code).toBe(0);
});

test('without a wait the deploy stays pending (exit code and plan say so) and the next apply does it', async () => {
  await open('frozen');
  synthTrainAndDeploy();
  const first = await p.run('apply', '--auto-approve');
  expect(first.code).toBe(1);
  expect(first.stdout + first.stderr).toMatch(
    /machine inspector-1: the deploy of model box-detector@3 is pending: training job \S+ is TRAINING_STATUS_PENDING/,
  );
  expect(await p.client.appClient.listMachines(p.credentials.locationId)).toEqual([]);

  const id = await jobId();
  const plan = await p.run('plan');
  expect(plan.stdout).toContain(`waits for training job ${id} (TRAINING_STATUS_PENDING)`);

  await p.client.clientFor(EmulatorService).advanceTrainingJob({ id, toEnd: true });
  const second = await p.run('apply', '--auto-approve');
  expect(second.stdout + second.stderr).toContain('Apply complete!');
  expect(second.code).toBe(0);
  expect(await storedPackages('inspector-2')).toEqual([expect.objectContaining({ name: 'box-detector', version: '3' })]);
});

test('a job that fails is an error naming the job and its error; no machine gets the model', async () => {
  await open('frozen');
  synthTrainAndDeploy();
  expect((await p.run('apply', '--auto-approve')).code).toBe(1);
  const id = await jobId();
  await p.client.clientFor(EmulatorService).failTrainingJob({ id, message: 'out of GPU memory' });
  const plan = await p.run('plan');
  expect(plan.code).toBe(1);
  expect(plan.stdout + plan.stderr).toContain(`training job ${id} for model box-detector@3 is TRAINING_STATUS_FAILED: out of GPU memory`);
  // The job's last log lines are shown where the failure is: on the deploy and on the job itself.
  expect(plan.stdout).toContain(`the last lines training job ${id} logged:`);
  expect(plan.stdout).toMatch(/"\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ error training failed: out of GPU memory"/);
  expect(plan.stdout).toMatch(/"\S+ \S+ info training job submitted for model box-detector version 3"/);
  const json = JSON.parse((await p.run('plan', '--json')).stdout) as PlanJson;
  const jobNotes = json.resource_changes.find((c) => c.address === 'fleetform_training_job.box-detector')?.notes ?? [];
  expect(jobNotes).toContainEqual(
    expect.objectContaining({
      message: `the last lines training job ${id} logged:`,
      value: expect.arrayContaining([expect.stringMatching(/error training failed: out of GPU memory$/)]),
    }),
  );
  expect(await p.client.appClient.listMachines(p.credentials.locationId)).toEqual([]);
});

test("a job that fails while apply waits for it is the apply's error, with the job's last log lines; no machine gets the model", async () => {
  await open('frozen');
  synthTrainAndDeploy();
  const applying = p.run('apply', '--auto-approve', '--wait-for-training', '2m');
  const id = await submittedTrainingJob(p);
  await p.client.clientFor(EmulatorService).failTrainingJob({ id, message: 'loss diverged' });
  const apply = await applying;
  expect(apply.code).toBe(1);
  const said = apply.stdout + apply.stderr;
  expect(said).toContain(`training job ${id} for model box-detector@3 is TRAINING_STATUS_FAILED: loss diverged`);
  expect(said).toContain(`the last lines training job ${id} logged:`);
  expect(said).toMatch(/\n {2,}\S+ \S+ error training failed: loss diverged\n/);
  expect(await p.client.appClient.listMachines(p.credentials.locationId)).toEqual([]);
});

test('a job canceled before it trained is an error at plan and apply naming the job; no machine gets the model', async () => {
  await open('frozen');
  synthTrainAndDeploy();
  expect((await p.run('apply', '--auto-approve')).code).toBe(1);
  const id = await jobId();
  await p.client.mlTrainingClient.cancelTrainingJob(id);
  await p.client.clientFor(EmulatorService).advanceTrainingJob({ id, toEnd: true });
  expect((await p.client.mlTrainingClient.getTrainingJob(id)).status).toBe(TrainingStatus.CANCELED);
  const plan = await p.run('plan');
  expect(plan.code).toBe(1);
  expect(plan.stdout + plan.stderr).toContain(`training job ${id} for model box-detector@3 is TRAINING_STATUS_CANCELED`);
  const apply = await p.run('apply', '--auto-approve', '--wait-for-training', '1m');
  expect(apply.code).toBe(1);
  expect(apply.stdout + apply.stderr).toContain(`training job ${id} for model box-detector@3 is TRAINING_STATUS_CANCELED`);
  expect(await p.client.appClient.listMachines(p.credentials.locationId)).toEqual([]);
});

test('an uploaded model file (MlModel) is an ML model version of the registry, deployed the same way; READY on both machines', async () => {
  await open('running');
  const file = path.join(p.dir, 'box-detector.tflite');
  await fs.writeFile(file, Buffer.alloc(50_000, 7));
  const app = new App({ outdir: p.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new FleetProvider(stack, 'cloud', {});
  const uploaded = new MlModel(stack, 'box-detector', {
    version: '2026-11-01T10-00-00',
    path: file,
    modelType: 'object_detection',
    modelFramework: 'tflite',
  });
  for (const name of ['inspector-1', 'inspector-2']) {
    const inspector = new Machine(stack, name, { name });
    const tflite = new Module(inspector, 'tflite', { moduleId: 'acme:sensors', version: '~1.2' });
    const model = inspector.deployModel(uploaded);
    new ModularResource(inspector, 'mlmodel', {
      name: 'mlmodel',
      api: 'rdk:service:mlmodel',
      model: tflite.model('pi-board'),
      attributes: { model_path: `${model.path}/box-detector.tflite` },
    });
  }
  app.synth();

  const apply = await p.run('apply', '--auto-approve');
  expect(apply.stdout + apply.stderr).toContain('Apply complete! Resources: 3 added');
  expect(apply.code).toBe(0);
  const organizationId = p.credentials.organizationId;
  const pkg = await p.client.packagesClient.getPackage(`${organizationId}/box-detector`, '2026-11-01T10-00-00');
  expect(pkg).toMatchObject({ type: 'ml_model', metadata: { model_type: 'object_detection', model_framework: 'tflite' } });
  for (const name of ['inspector-1', 'inspector-2']) {
    expect(await storedPackages(name)).toEqual([
      { name: 'box-detector', package: `${organizationId}/box-detector`, version: '2026-11-01T10-00-00', type: 'ml_model' },
    ]);
  }
  const landed = await statusUntil((s) => s.machines.length === 2 && s.machines.every((m) => m.health === 'healthy'));
  for (const m of landed.machines) expect(m.packages).toEqual([expect.objectContaining({ name: 'box-detector', state: 'ready' })]);
  expect((await p.run('plan', '--detailed-exitcode')).code).toBe(0);

  const destroy = await p.run('destroy', '--auto-approve');
  expect(destroy.code).toBe(0);
  expect(await p.client.packagesClient.getPackage(`${organizationId}/box-detector`, '2026-11-01T10-00-00')).toBeUndefined();
});

test("training logs prints a job's log, following it until the job ends; an address with no job says what to give", async () => {
  await open('running');
  synthTrainAndDeploy();
  expect((await p.run('apply', '--auto-approve')).code).toBe(1);
  const logs = await p.runBare('training', 'logs', 'fleetform_training_job.box-detector', '--interval', '200ms');
  expect(logs.code).toBe(0);
  expect(logs.stdout).toContain('submitted for model box-detector version 3');
  expect(logs.stdout.trim().split('\n').length).toBeGreaterThan(1);
  expect(logs.stderr).toMatch(/training job \S+ is TRAINING_STATUS_COMPLETED/);
  const missing = await p.runBare('training', 'logs', 'fleetform_training_job.nope');
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain('no training job at fleetform_training_job.nope in the state');
});
