/**
 * Training jobs kept by a destroy (retain_on_delete) under the real Terraform CLI: the
 * next apply takes them back, as `fleetform apply` does, and the plan after it is empty.
 */
import * as path from 'node:path';
import { App, LocalBackend, TerraformStack } from 'cdktf';
import { CustomTrainingJob, Dataset, FleetProvider, ModelType, TrainingJob } from '../../src';
import { openEmulatorProject, type EmulatorProject } from '../e2e/fleet-fixture';
import { requireTerraform, terraform, terraformHome } from './terraform-cli';

jest.setTimeout(300_000);

let project: EmulatorProject;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  requireTerraform();
  project = await openEmulatorProject('ff-terraform-retained-');
  env = await terraformHome(project.dir, project.env);
});

afterAll(async () => {
  await project?.close();
});

/** The training stack of the example: a dataset and two retained jobs. */
function synthTraining(): void {
  const app = new App({ outdir: project.outdir });
  const stack = new TerraformStack(app, 'training');
  new LocalBackend(stack, { path: path.join(project.dir, 'terraform.training.tfstate') });
  new FleetProvider(stack, 'cloud', {});
  const boxes = new Dataset(stack, 'boxes', { name: 'warehouse-boxes' });
  new TrainingJob(stack, 'box-detector', {
    dataset: boxes,
    modelName: 'box-detector',
    modelVersion: '1',
    modelType: ModelType.OBJECT_DETECTION,
    tags: ['box'],
    retainOnDelete: true,
  });
  new CustomTrainingJob(stack, 'box-detector-custom', {
    dataset: boxes,
    registryItemId: 'acme:trainer',
    registryItemVersion: '0.3.0',
    modelName: 'box-detector-custom',
    modelVersion: '1',
    arguments: { epochs: '20' },
    retainOnDelete: true,
  });
  app.synth();
}

const tf = (command: string, ...args: string[]) =>
  terraform(path.join(project.outdir, 'stacks', 'training'), env, command, '-input=false', '-no-color', ...args);

test('apply, destroy keeping the jobs, apply again takes them back, then no changes', async () => {
  synthTraining();
  expect((await tf('init')).code).toBe(0);
  const first = await tf('apply', '-auto-approve');
  expect(first.stderr).toBe('');
  expect(first.stdout).toContain('Apply complete! Resources: 3 added');

  const destroy = await tf('destroy', '-auto-approve');
  expect(destroy.code).toBe(0);
  expect(destroy.stdout).toContain('retain_on_delete: the object is kept on the service');
  const kept = await project.client.mlTrainingClient.listTrainingJobs(project.credentials.organizationId);
  expect(kept).toHaveLength(2);

  const plan = await tf('plan');
  expect(plan.stderr).toBe('');
  expect(plan.stdout).toContain('an earlier destroy kept this object (retain_on_delete; id ');
  expect(plan.stdout).toContain("apply takes it back into Terraform's state instead of creating another");
  const again = await tf('apply', '-auto-approve');
  expect(again.stderr).toBe('');
  expect(again.stdout).toContain('Apply complete! Resources: 3 added');
  const jobs = await project.client.mlTrainingClient.listTrainingJobs(project.credentials.organizationId);
  expect(jobs.map((j) => j.id).sort()).toEqual(kept.map((j) => j.id).sort());

  const none = await tf('plan', '-detailed-exitcode');
  expect(none.stdout).toContain('No changes.');
  expect(none.code).toBe(0);

  // Imported by hand, a job whose container version the service chose plans no change to it.
  const custom = jobs.find((j) => j.isCustomJob);
  const stackDir = path.join(project.outdir, 'stacks', 'training');
  expect((await terraform(stackDir, env, 'state', 'rm', 'fleetform_custom_training_job.box-detector-custom')).code).toBe(0);
  const imported = await tf('import', 'fleetform_custom_training_job.box-detector-custom', custom?.id ?? '');
  expect(imported.stderr).toBe('');
  const shown = await terraform(stackDir, env, 'state', 'show', '-no-color', 'fleetform_custom_training_job.box-detector-custom');
  expect(shown.stdout).toMatch(/container_version\s+= "default"/);
  const afterImport = await tf('plan', '-detailed-exitcode');
  expect(afterImport.stderr).toBe('');
  expect(afterImport.stdout).not.toContain('container_version');
  // The job stands for the dataset code gives now (the one it trained on was destroyed): recorded by one apply.
  expect(afterImport.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
  expect((await tf('apply', '-auto-approve')).stdout).toContain('0 added, 1 changed, 0 destroyed');
  const settled = await tf('plan', '-detailed-exitcode');
  expect(settled.stdout).toContain('No changes.');
  expect(settled.code).toBe(0);
});
