import { Code } from '@connectrpc/connect';
import { EmulatorService } from '../../src/api/emulator-control';
import type { ServiceClient } from '../../src/api/client';
import { TrainingStatus } from '../../src/domain';
import { readStacks } from '../../src/engine/desired/read-stacks';
import { Engine } from '../../src/engine/engine';
import { defaultKinds } from '../../src/engine/kinds';
import type { ApplyReporter } from '../../src/engine/apply/executor';
import { fleetform, openEmulatorProject, type EmulatorProject, type FleetShape } from './fleet-fixture';

jest.setTimeout(120_000);

let p: EmulatorProject;
let dir: string;
let env: Record<string, string>;
let client: ServiceClient;
const out = () => p.outdir;
const synth = (shape: FleetShape = {}) => p.synth(shape);
const run = (...args: string[]) => p.run(...args);
const backend = () => p.backend();
const quiet: ApplyReporter = { start: () => undefined, done: () => undefined, failed: () => undefined, skipped: () => undefined };

async function jobId(): Promise<string> {
  const id = (await backend().read('fleet')).resources['fleetform_training_job.detector']?.ids.id;
  if (!id) throw new Error('no job in state');
  return id;
}

/** Each test has a project and an emulator of its own: none depends on another having run. */
beforeEach(async () => {
  p = await openEmulatorProject('ff-life-', { clock: 'frozen' });
  ({ dir, env, client } = p);
});

afterEach(async () => {
  await p?.close();
});

/** The fleet of `shape` synthesized and applied: where a test that changes it starts. */
async function applied(shape: FleetShape = {}): Promise<void> {
  synth(shape);
  const apply = await run('apply', '--auto-approve');
  if (apply.code !== 0) throw new Error(`setup apply failed: ${apply.stdout}${apply.stderr}`);
}

test('training job lifecycle: submit, immutable parameters, failure shown, cancel on removal, delete once completed', async () => {
  synth({ jobVersion: '1' });
  expect((await run('apply', '--auto-approve')).code).toBe(0);
  const id = await jobId();
  const job = await client.mlTrainingClient.getTrainingJob(id);
  expect(job.modelName).toBe('box-detector');
  expect(job.datasetId).toBe((await backend().read('fleet')).resources['fleetform_dataset.boxes']?.ids.id);

  synth({ jobVersion: '1', jobTags: ['box', 'pallet'] });
  const refused = await run('plan');
  expect(refused.code).toBe(1);
  expect(refused.stdout).toMatch(/cannot change tags while keeping model box-detector version 1/);
  expect(refused.stdout).toContain('set a new modelVersion');

  const controls = client.clientFor(EmulatorService);
  await controls.failTrainingJob({ id, message: 'out of memory' });
  synth({ jobVersion: '1' });
  const failed = await run('plan', '--detailed-exitcode');
  expect(failed.code).toBe(0);
  expect(failed.stdout).toContain('the job failed: out of memory');

  synth({ jobVersion: '2' });
  const retrain = await run('plan');
  expect(retrain.stdout).toContain('fleetform_training_job.detector must be replaced');
  expect((await run('apply', '--auto-approve')).code).toBe(0);
  const second = await jobId();
  expect(second).not.toBe(id);
  await expect(client.mlTrainingClient.getTrainingJob(id)).rejects.toMatchObject({ code: 'NOT_FOUND' });

  synth({});
  const removal = await run('apply', '--auto-approve');
  expect(removal.code).toBe(0);
  expect(removal.stdout).toContain('deletion started');
  expect((await client.mlTrainingClient.getTrainingJob(second)).status).toBe(TrainingStatus.CANCELING);
  expect((await backend().read('fleet')).resources['fleetform_training_job.detector']?.status).toBe('deleting');
  const waiting = await run('plan');
  expect(waiting.stdout).toContain('deletion started earlier and is not finished yet');
  await controls.advanceTrainingJob({ id: second, toEnd: true });
  expect((await client.mlTrainingClient.getTrainingJob(second)).status).toBe(TrainingStatus.CANCELED);
  expect((await run('apply', '--auto-approve')).code).toBe(0);
  expect((await backend().read('fleet')).resources['fleetform_training_job.detector']).toBeUndefined();
  await expect(client.mlTrainingClient.getTrainingJob(second)).rejects.toMatchObject({ code: 'NOT_FOUND' });
});

test('a machine edited between plan and apply is not overwritten; the rest of the fleet is applied', async () => {
  synth({ timeoutMs: 150 });
  expect((await run('apply', '--auto-approve')).code).toBe(0);
  synth({ timeoutMs: 175 });
  const engine = new Engine({ client, backend: backend(), kinds: defaultKinds(), parallelism: 4, lockTimeoutMs: 0 });
  const stacks = await readStacks(out());
  const release = await engine.lock(['fleet'], 'apply');
  try {
    const { plan, states } = await engine.plan(stacks, { refresh: true, destroy: false });
    const partId = states.get('fleet')?.resources['fleetform_machine.picker-1']?.ids.part_id as string;
    const part = await client.appClient.getMachinePart(partId);
    await client.appClient.updateMachinePart(part.id, part.name, { ...part.config, components: [] }, part.lastUpdated);
    const outcome = await engine.apply(plan, stacks, states, quiet);
    expect(outcome.failed.map((f) => f.address)).toEqual(['fleetform_machine.picker-1']);
    expect(String(outcome.failed[0]?.error)).toMatch(/changed on the service after the plan was made; nothing was overwritten/);
    expect((await client.appClient.getMachinePart(partId)).config.components).toEqual([]);
    const other = states.get('fleet')?.resources['fleetform_machine.picker-2']?.ids.part_id as string;
    const sensor = (
      (await client.appClient.getMachinePart(other)).config.components as Array<{ name: string; attributes: { timeout_ms: number } }>
    ).find((c) => c.name === 'ultrasonic-1');
    expect(sensor?.attributes.timeout_ms).toBe(175);
  } finally {
    await release();
  }
  expect((await run('apply', '--auto-approve')).code).toBe(0);
});

test('an apply interrupted by a failing service resumes where it stopped', async () => {
  await applied({ timeoutMs: 175 });
  synth({ machines: ['picker-1', 'picker-2', 'picker-3'], timeoutMs: 175 });
  await client.clientFor(EmulatorService).injectFault({ method: 'UpdateRobotPart', code: Code.Internal, message: 'disk full', count: 1 });
  const first = await run('apply', '--auto-approve', '--parallelism', '1');
  expect(first.code).toBe(1);
  expect(first.stdout).toContain('disk full');
  expect(first.stdout).toMatch(/Apply failed: 1 resource\(s\) failed/);
  const state = await backend().read('fleet');
  expect(state.resources['fleetform_machine.picker-3']?.ids.machine_id).toBeTruthy();
  const resumed = await run('apply', '--auto-approve');
  expect(resumed.code).toBe(0);
  expect(resumed.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
  expect((await run('plan', '--detailed-exitcode')).code).toBe(0);
});

test('a read the service refuses stops the plan: nothing is taken for deleted, kept or recreated', async () => {
  await applied({ machines: ['picker-1', 'picker-2', 'picker-3'], timeoutMs: 175 });
  synth({ machines: ['picker-1', 'picker-2'], timeoutMs: 175 }); // picker-3 is no longer declared
  const controls = client.clientFor(EmulatorService);
  await controls.injectFault({ method: 'GetRobotPart', code: Code.Internal, message: 'storage offline', count: 100 });
  try {
    const plan = await run('plan', '--detailed-exitcode');
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('storage offline');
    expect(plan.stdout).not.toMatch(/will be (created|destroyed)|forget/);
  } finally {
    await controls.clearFaults({});
  }
  const plan = await run('plan', '--detailed-exitcode');
  expect(plan.code).toBe(2);
  expect(plan.stdout).toContain('Plan: 0 to add, 0 to change, 1 to destroy.');
});

test('destroy removes everything and leaves an empty state', async () => {
  await applied({ machines: ['picker-1', 'picker-2', 'picker-3'], timeoutMs: 175 });
  const destroyed = await run('destroy', '--auto-approve');
  expect(destroyed.code).toBe(0);
  expect(destroyed.stdout).toMatch(/Destroy plan: 0 to add, 0 to change, 4 to destroy\./);
  expect(destroyed.stdout).toContain('Destroy complete! Resources: 0 added, 0 changed, 4 destroyed.');
  expect(Object.keys((await backend().read('fleet')).resources)).toEqual([]);
  const list = await fleetform(dir, ['state', 'list'], env);
  expect(list.stdout).toBe('');
});
