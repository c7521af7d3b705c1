/**
 * Packages through the provider under the real Terraform CLI against the emulator: a model
 * file uploaded by an MlModel, deployed to a machine, the config carrying the package.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { App, LocalBackend, TerraformStack } from 'cdktf';
import { FleetProvider, Machine, MlModel, ModularResource, Module } from '../../src';
import { openEmulatorProject, type EmulatorProject } from '../e2e/fleet-fixture';
import { requireTerraform, terraform, terraformHome } from './terraform-cli';

jest.setTimeout(300_000);

let project: EmulatorProject;

beforeAll(async () => {
  requireTerraform();
  project = await openEmulatorProject('ff-terraform-packages-');
});

afterAll(async () => {
  await project?.close();
});

test('terraform uploads a model, deploys it to a machine, plans no changes after, and destroys both', async () => {
  const file = path.join(project.dir, 'detector.onnx');
  await fs.writeFile(file, Buffer.alloc(10_000, 3));
  const app = new App({ outdir: project.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new LocalBackend(stack, { path: path.join(project.dir, 'terraform.fleet.tfstate') });
  new FleetProvider(stack, 'cloud', {});
  const model = new MlModel(stack, 'detector', { version: '1', path: file, modelFramework: 'onnx' });
  const machine = new Machine(stack, 'inspector', { name: 'inspector' });
  const sensors = new Module(machine, 'sensors', { moduleId: 'acme:sensors', version: '~1.2' });
  const deployed = machine.deployModel(model);
  new ModularResource(machine, 'vision', {
    name: 'vision',
    api: 'rdk:service:vision',
    model: sensors.model('pi-board'),
    attributes: { model_path: `${deployed.path}/detector.onnx` },
  });
  app.synth();

  const env = await terraformHome(project.dir, project.env);
  const tf = (...args: string[]) => terraform(path.join(project.outdir, 'stacks', 'fleet'), env, ...args);
  const init = await tf('init', '-input=false', '-no-color');
  expect(init.stderr).toBe('');
  expect(init.code).toBe(0);
  const apply = await tf('apply', '-input=false', '-no-color', '-auto-approve');
  expect(apply.stderr).toBe('');
  expect(apply.stdout).toContain('Apply complete! Resources: 2 added, 0 changed, 0 destroyed.');
  const org = project.credentials.organizationId;
  const [onService] = await project.client.appClient.listMachines(project.credentials.locationId);
  const parts = await project.client.appClient.getMachineParts(onService?.id ?? '');
  expect(parts[0]?.config.packages).toEqual([{ name: 'detector', package: `${org}/detector`, version: '1', type: 'ml_model' }]);

  const again = await tf('plan', '-input=false', '-no-color', '-detailed-exitcode');
  expect(again.stdout).toContain('No changes.');
  expect(again.code).toBe(0);

  const destroy = await tf('destroy', '-input=false', '-no-color', '-auto-approve');
  expect(destroy.code).toBe(0);
  expect(await project.client.packagesClient.getPackage(`${org}/detector`, '1')).toBeUndefined();
});
