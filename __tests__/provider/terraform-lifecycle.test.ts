/**
 * The provider under the real Terraform CLI against the emulator: offline init, plan,
 * apply, an empty second plan, an in-place update, a replace, drift made with the
 * official SDK, import of a machine made outside, destroy.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { loadSdk } from '../../src/api/sdk';
import { openEmulatorProject, type EmulatorProject } from '../e2e/fleet-fixture';
import { requireTerraform, terraform, terraformHome } from './terraform-cli';

jest.setTimeout(300_000);

let project: EmulatorProject;
let env: NodeJS.ProcessEnv;
let stackDir: string;

beforeAll(async () => {
  requireTerraform();
  project = await openEmulatorProject('ff-terraform-');
  env = await terraformHome(project.dir, project.env);
  stackDir = path.join(project.outdir, 'stacks', 'fleet');
});

afterAll(async () => {
  await project?.close();
});

const tf = (...args: string[]) => terraform(stackDir, env, ...args);

async function machineConfig(name: string): Promise<Record<string, unknown>> {
  const machine = (await project.client.appClient.listMachines(project.credentials.locationId)).find((m) => m.name === name);
  if (!machine) throw new Error(`no machine ${name} on the service`);
  const parts = await project.client.appClient.getMachineParts(machine.id);
  const main = parts.find((p) => p.mainPart) ?? parts[0];
  return (main?.config ?? {}) as Record<string, unknown>;
}

function moduleVersion(config: Record<string, unknown>): unknown {
  const modules = config.modules as Array<Record<string, unknown>>;
  return modules.find((m) => m.module_id === 'acme:sensors')?.version;
}

test('init offline, create, no changes, update in place, replace, drift reverted, destroy', async () => {
  project.synth({ jobVersion: '1' });
  const init = await tf('init', '-input=false', '-no-color');
  expect(init.stderr).toBe('');
  expect(init.stdout).toContain('Installed fleetform/fleetform v');

  const plan = await tf('plan', '-input=false', '-no-color', '-detailed-exitcode');
  expect(plan.stderr).toBe('');
  expect(plan.code).toBe(2);
  expect(plan.stdout).toContain('Plan: 4 to add, 0 to change, 0 to destroy.');
  expect(plan.stdout).toContain('# fleetform_machine.picker-1 will be created');

  const apply = await tf('apply', '-input=false', '-no-color', '-auto-approve');
  expect(apply.stderr).toBe('');
  expect(apply.stdout).toContain('Apply complete! Resources: 4 added, 0 changed, 0 destroyed.');
  const config = await machineConfig('picker-1');
  expect(moduleVersion(config)).toBe('~1.2');
  // A literal placeholder reaches the service as written, not interpolated by Terraform.
  expect(JSON.stringify(config)).toContain('/opt/acme/bin:${environment.PATH}');

  const again = await tf('plan', '-input=false', '-no-color', '-detailed-exitcode');
  expect(again.stdout).toContain('No changes.');
  expect(again.code).toBe(0);

  // The module's secret reached the service, never Terraform's state; a new secret is a change.
  expect(JSON.stringify(config)).toContain('"API_TOKEN":"token-one"');
  expect(await fs.readFile(path.join(project.dir, 'terraform.fleet.tfstate'), 'utf8')).not.toContain('token-one');
  project.synth({ jobVersion: '1', token: 'token-two' });
  const rotated = await tf('plan', '-input=false', '-no-color', '-detailed-exitcode');
  expect(rotated.stdout).toMatch(/~ secret_env_digest = "hmac-sha256:[0-9a-f]+" -> "hmac-sha256:[0-9a-f]+"/);
  expect(rotated.stdout).toContain('Plan: 0 to add, 2 to change, 0 to destroy.');
  expect(rotated.stdout).not.toContain('token-');
  expect((await tf('apply', '-input=false', '-no-color', '-auto-approve')).stdout).toContain('0 added, 2 changed, 0 destroyed');
  expect(JSON.stringify(await machineConfig('picker-1'))).toContain('"API_TOKEN":"token-two"');
  expect(await fs.readFile(path.join(project.dir, 'terraform.fleet.tfstate'), 'utf8')).not.toContain('token-two');

  // A module version change: both machines updated in place, config diffed key by key.
  project.synth({ jobVersion: '1', policy: '~1.3', token: 'token-two' });
  const update = await tf('plan', '-input=false', '-no-color', '-detailed-exitcode');
  expect(update.code).toBe(2);
  expect(update.stdout).toContain('# fleetform_machine.picker-1 will be updated in-place');
  expect(update.stdout).toContain('Plan: 0 to add, 2 to change, 0 to destroy.');
  expect(update.stdout).toMatch(/version\s+= "~1\.2" -> "~1\.3"/);
  expect((await tf('apply', '-input=false', '-no-color', '-auto-approve')).stdout).toContain('0 added, 2 changed, 0 destroyed');
  expect(moduleVersion(await machineConfig('picker-2'))).toBe('~1.3');

  // A new model version replaces the training job.
  project.synth({ jobVersion: '2', policy: '~1.3', token: 'token-two' });
  const replace = await tf('plan', '-input=false', '-no-color', '-detailed-exitcode');
  expect(replace.stdout).toContain('# fleetform_training_job.detector must be replaced');
  expect(replace.stdout).toMatch(/model_version\s+= "1" -> "2" # forces replacement/);
  expect((await tf('apply', '-input=false', '-no-color', '-auto-approve')).stdout).toContain('1 added, 0 changed, 1 destroyed');
  const jobs = await project.client.mlTrainingClient.listTrainingJobs(project.credentials.organizationId);
  expect(jobs.map((j) => j.modelVersion).sort()).toEqual(['1', '2']);

  // Drift made with the official SDK shows in the plan and apply reverts it.
  const sdk = await loadSdk();
  const official = await sdk.createViamClient({
    serviceHost: env.FLEETFORM_ENDPOINT as string,
    credentials: { type: 'api-key', authEntity: env.FLEETFORM_API_KEY_ID as string, payload: env.FLEETFORM_API_KEY as string },
  });
  const machine = (await project.client.appClient.listMachines(project.credentials.locationId)).find((m) => m.name === 'picker-1');
  const parts = await official.appClient.getRobotParts(machine?.id as string);
  const part = parts.find((p) => p.mainPart) ?? parts[0];
  const drifted = JSON.parse(JSON.stringify(part?.robotConfig?.toJson())) as {
    components: Array<{ name: string; attributes?: Record<string, unknown> }>;
  };
  const ultrasonic = drifted.components.find((c) => c.name === 'ultrasonic-1');
  if (!ultrasonic?.attributes) throw new Error('the machine has no ultrasonic-1 component');
  ultrasonic.attributes.timeout_ms = 999;
  await official.appClient.updateRobotPart(part?.id as string, part?.name as string, sdk.Struct.fromJson(drifted as never));
  // Written as a Struct alone, the config is stored with its keys sorted.
  const ultrasonicKeys = async () => {
    const stored = JSON.parse((await official.appClient.getRobotPart(part?.id as string)).configJson) as typeof drifted;
    return Object.keys(stored.components.find((c) => c.name === 'ultrasonic-1')?.attributes ?? {});
  };
  expect(await ultrasonicKeys()).toEqual(['board', 'echo_interrupt_pin', 'timeout_ms', 'trigger_pin']);
  const drift = await tf('plan', '-input=false', '-no-color', '-detailed-exitcode');
  expect(drift.code).toBe(2);
  expect(drift.stdout).toContain('# fleetform_machine.picker-1 will be updated in-place');
  expect(drift.stdout).toMatch(/timeout_ms\s+= 999 -> 150/);
  expect((await tf('apply', '-input=false', '-no-color', '-auto-approve')).stdout).toContain('0 added, 1 changed, 0 destroyed');
  const reverted = (await machineConfig('picker-1')).components as Array<{ name: string; attributes?: Record<string, unknown> }>;
  expect(reverted.find((c) => c.name === 'ultrasonic-1')?.attributes?.timeout_ms).toBe(150);
  // The provider's write sends the config as text: the code's key order is back.
  expect(await ultrasonicKeys()).toEqual(['trigger_pin', 'echo_interrupt_pin', 'board', 'timeout_ms']);

  const destroy = await tf('destroy', '-input=false', '-no-color', '-auto-approve');
  expect(destroy.stderr).toBe('');
  expect(destroy.stdout).toContain('Destroy complete! Resources: 4 destroyed.');
  expect(await project.client.appClient.listMachines(project.credentials.locationId)).toEqual([]);
  expect((await project.client.datasetClient.listDatasets(project.credentials.organizationId)).map((d) => d.name)).not.toContain('boxes');
});

test('terraform import and an import block adopt objects made outside; nothing is created twice', async () => {
  const other = await openEmulatorProject('ff-terraform-import-');
  try {
    const otherEnv = await terraformHome(other.dir, other.env);
    other.synth({ machines: ['outside'] });
    const dir = path.join(other.outdir, 'stacks', 'fleet');
    const id = await other.client.appClient.newMachine('outside', other.credentials.locationId);
    expect((await terraform(dir, otherEnv, 'init', '-input=false', '-no-color')).code).toBe(0);
    const imported = await terraform(dir, otherEnv, 'import', '-input=false', '-no-color', 'fleetform_machine.outside', id);
    expect(imported.stderr).toBe('');
    expect(imported.stdout).toContain('Import successful!');
    const unknown = await terraform(dir, otherEnv, 'import', '-input=false', '-no-color', 'fleetform_dataset.boxes', 'no-such-id');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('the service has no fleetform_dataset with id "no-such-id"');
    const plan = await terraform(dir, otherEnv, 'plan', '-input=false', '-no-color');
    expect(plan.stdout).toContain('# fleetform_machine.outside will be updated in-place');
    expect(plan.stdout).toContain('Plan: 1 to add, 1 to change, 0 to destroy.');
    expect((await other.client.appClient.listMachines(other.credentials.locationId)).map((m) => m.id)).toEqual([id]);

    // An import block adopts the dataset made outside: planned as an import, applied without a create.
    const datasetId = await other.client.datasetClient.createDataset('boxes', other.credentials.organizationId);
    await fs.writeFile(path.join(dir, 'imports.tf.json'), JSON.stringify({ import: [{ to: 'fleetform_dataset.boxes', id: datasetId }] }));
    const withImport = await terraform(dir, otherEnv, 'plan', '-input=false', '-no-color');
    expect(withImport.stdout).toContain('# fleetform_dataset.boxes will be imported');
    expect(withImport.stdout).toContain('Plan: 1 to import, 0 to add, 1 to change, 0 to destroy.');
    const applied = await terraform(dir, otherEnv, 'apply', '-input=false', '-no-color', '-auto-approve');
    expect(applied.stdout).toContain('Apply complete! Resources: 1 imported, 0 added, 1 changed, 0 destroyed.');
    expect(
      (await other.client.datasetClient.listDatasets(other.credentials.organizationId)).filter((d) => d.name === 'boxes').map((d) => d.id),
    ).toEqual([datasetId]);
    const settled = await terraform(dir, otherEnv, 'plan', '-input=false', '-no-color', '-detailed-exitcode');
    expect(settled.stdout).toContain('No changes.');
  } finally {
    await other.close();
  }
});
