/**
 * What a training job says of itself under the real Terraform CLI against the emulator: its
 * status, the model version it trained, and for a failed job its error and last log lines,
 * as attributes a Terraform user reads in outputs and chains into machines' package
 * versions, machine after machine behind health gates; a failed job reaches no machine.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { EmulatorService } from '../../src/api/emulator-control';
import type { ClockMode } from '../../src/emulator';
import { openEmulatorProject, quickMachines, submittedTrainingJob, type EmulatorProject } from '../e2e/fleet-fixture';
import { requireTerraform, terraform, terraformHome } from './terraform-cli';

jest.setTimeout(300_000);

let project: EmulatorProject | undefined;
let restoreEnv: (() => void) | undefined;

afterEach(async () => {
  await project?.close();
  project = undefined;
  restoreEnv?.();
  delete process.env.FLEETFORM_EMULATOR_TRAINING_DURATION;
});

const PROVIDERS = `terraform {
  required_providers {
    fleetform = { source = "fleetform/fleetform", version = "0.1.0" }
  }
}

provider "fleetform" {
  wait_for_training = "2m"
}
`;

const JOB = `resource "fleetform_dataset" "boxes" {
  name = "boxes"
}

resource "fleetform_training_job" "detector" {
  dataset_id    = fleetform_dataset.boxes.id
  model_name    = "box-detector"
  model_version = "3"
  model_type    = "MODEL_TYPE_OBJECT_DETECTION"
  tags          = ["box"]
}
`;

/** A machine deploying the version the job trained, its package version read from the job; after `after` when given. */
function machine(name: string, after?: string): string {
  return `resource "fleetform_machine" "${name}" {
  name = "${name}"
  config = jsonencode({
    modules  = [{ type = "registry", name = "acme_sensors", module_id = "acme:sensors", version = "~1.2" }]
    packages = [{
      name    = "box-detector"
      package = "\${fleetform_training_job.detector.organization_id}/box-detector"
      version = fleetform_training_job.detector.trained_version
      type    = "ml_model"
    }]
  })
  health_gate = { timeout = "20s", settle = "200ms" }${after ? `\n  depends_on  = [fleetform_machine.${after}]` : ''}
}
`;
}

const OUTPUTS = `output "status" {
  value = fleetform_training_job.detector.status
}

output "trained_version" {
  value = fleetform_training_job.detector.trained_version
}
`;

async function open(prefix: string, clock: ClockMode, hcl: string): Promise<(...args: string[]) => ReturnType<typeof terraform>> {
  requireTerraform();
  restoreEnv = quickMachines();
  process.env.FLEETFORM_EMULATOR_TRAINING_DURATION = '2s';
  project = await openEmulatorProject(prefix, { clock });
  const env = await terraformHome(project.dir, project.env);
  const dir = path.join(project.dir, 'hcl');
  await fs.mkdir(dir);
  await fs.writeFile(path.join(dir, 'main.tf'), `${PROVIDERS}\n${hcl}`);
  const tf = (...args: string[]) => terraform(dir, env, ...args);
  expect((await tf('init', '-input=false', '-no-color')).stderr).toBe('');
  return tf;
}

async function packagesOf(p: EmulatorProject, name: string): Promise<unknown> {
  const found = (await p.client.appClient.listMachines(p.credentials.locationId)).find((m) => m.name === name);
  const parts = await p.client.appClient.getMachineParts(found?.id ?? '');
  return parts[0]?.config.packages;
}

interface ShownResource {
  address: string;
  values: Record<string, unknown>;
}

async function jobAttributes(tf: (...args: string[]) => ReturnType<typeof terraform>): Promise<Record<string, unknown>> {
  const shown = JSON.parse((await tf('show', '-json', '-no-color')).stdout) as { values: { root_module: { resources: ShownResource[] } } };
  const job = shown.values.root_module.resources.find((r) => r.address === 'fleetform_training_job.detector');
  if (!job) throw new Error('no training job in the state');
  return job.values;
}

test("one apply trains, then deploys the job's trained version to a canary and, once it is healthy, the next machine; outputs read the job's status and version", async () => {
  const tf = await open(
    'ff-terraform-training-chain-',
    'running',
    `${JOB}\n${machine('canary')}\n${machine('rest', 'canary')}\n${OUTPUTS}`,
  );
  const plan = await tf('plan', '-input=false', '-no-color');
  expect(plan.stdout).toMatch(/status\s+= \(known after apply\)/);
  expect(plan.stdout).toMatch(/trained_version\s+= \(known after apply\)/);
  const apply = await tf('apply', '-input=false', '-no-color', '-auto-approve');
  expect(apply.stderr).toBe('');
  expect(apply.stdout).toContain('Apply complete! Resources: 4 added, 0 changed, 0 destroyed.');
  const outputs = JSON.parse((await tf('output', '-json')).stdout) as Record<string, { value: unknown }>;
  expect(outputs.status?.value).toBe('TRAINING_STATUS_COMPLETED');
  expect(outputs.trained_version?.value).toBe('3');
  const p = project as EmulatorProject;
  const organizationId = p.credentials.organizationId;
  for (const name of ['canary', 'rest'])
    expect(await packagesOf(p, name)).toEqual([
      { name: 'box-detector', package: `${organizationId}/box-detector`, version: '3', type: 'ml_model' },
    ]);
  expect(await jobAttributes(tf)).toMatchObject({ error_message: null, log_tail: null, id: expect.any(String) });
  const again = await tf('plan', '-input=false', '-no-color', '-detailed-exitcode');
  expect(again.stdout).toContain('No changes.');
  expect(again.code).toBe(0);
});

test('a job that fails while apply waits for it: its status, error and last log lines are its attributes, and the machine deploying it is never written', async () => {
  const deploy = `resource "fleetform_machine" "canary" {
  name          = "canary"
  config        = jsonencode({ modules = [{ type = "registry", name = "acme_sensors", module_id = "acme:sensors", version = "~1.2" }] })
  deploy_models = { "box-detector" = "box-detector@\${fleetform_training_job.detector.model_version}" }
}
`;
  const tf = await open('ff-terraform-training-failed-', 'frozen', `${JOB}\n${deploy}\n${OUTPUTS}`);
  const p = project as EmulatorProject;
  const applying = tf('apply', '-input=false', '-no-color', '-auto-approve');
  const id = await submittedTrainingJob(p);
  await p.client.clientFor(EmulatorService).failTrainingJob({ id, message: 'out of GPU memory' });
  const apply = await applying;
  expect(apply.code).toBe(1);
  const said = apply.stderr.replace(/\s+/g, ' ');
  expect(said).toContain(`training job ${id} for model box-detector@3 is TRAINING_STATUS_FAILED: out of GPU memory`);
  expect(said).toContain(`the last lines training job ${id} logged:`);
  expect(await p.client.appClient.listMachines(p.credentials.locationId)).toEqual([]);
  const job = await jobAttributes(tf);
  expect(job).toMatchObject({ id, status: 'TRAINING_STATUS_FAILED', trained_version: null, error_message: 'out of GPU memory' });
  expect(job.log_tail).toEqual(expect.arrayContaining([expect.stringMatching(/error training failed: out of GPU memory$/)]));
});
