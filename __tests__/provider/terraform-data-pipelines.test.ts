/** The data pipeline kind under the real Terraform CLI against the emulator: created, renamed in place, replaced for a new schedule. */
import * as path from 'node:path';
import { App, LocalBackend, TerraformStack } from 'cdktf';
import { DataPipeline, FleetProvider } from '../../src';
import { openEmulatorProject, type EmulatorProject } from '../e2e/fleet-fixture';
import { requireTerraform, terraform, terraformHome } from './terraform-cli';

jest.setTimeout(300_000);

let project: EmulatorProject;
let env: NodeJS.ProcessEnv;
let stackDir: string;

beforeAll(async () => {
  requireTerraform();
  project = await openEmulatorProject('ff-terraform-pipelines-');
  env = await terraformHome(project.dir, project.env);
  stackDir = path.join(project.outdir, 'stacks', 'fleet');
});

afterAll(async () => {
  await project?.close();
});

const tf = (...args: string[]) => terraform(stackDir, env, ...args);

function synth(name: string, schedule: string): void {
  const app = new App({ outdir: project.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new LocalBackend(stack, { path: path.join(project.dir, 'terraform.fleet.tfstate') });
  new FleetProvider(stack, 'cloud', {});
  new DataPipeline(stack, 'temps', { name, schedule, query: [{ $match: { component_name: 'thermometer' } }] });
  app.synth();
}

test('create, rename in place, a new schedule replaces', async () => {
  const list = async () => project.client.dataPipelinesClient.listDataPipelines(project.credentials.organizationId);
  synth('temps', '0 * * * *');
  expect((await tf('init', '-input=false', '-no-color')).stderr).toBe('');
  const created = await tf('apply', '-input=false', '-no-color', '-auto-approve');
  expect(created.stderr).toBe('');
  expect(created.stdout).toContain('Apply complete! Resources: 1 added, 0 changed, 0 destroyed.');
  const [first] = await list();
  expect(first).toMatchObject({ name: 'temps', schedule: '0 * * * *', stages: [{ $match: { component_name: 'thermometer' } }] });

  synth('temperatures', '0 * * * *');
  const renamed = await tf('apply', '-input=false', '-no-color', '-auto-approve');
  expect(renamed.stderr).toBe('');
  expect(renamed.stdout).toContain('Resources: 0 added, 1 changed, 0 destroyed.');
  expect((await list()).map((p) => [p.id, p.name])).toEqual([[first?.id, 'temperatures']]);

  synth('temperatures', '*/15 * * * *');
  const replaced = await tf('apply', '-input=false', '-no-color', '-auto-approve');
  expect(replaced.stderr).toBe('');
  expect(replaced.stdout).toContain('Resources: 1 added, 0 changed, 1 destroyed.');
  const after = await list();
  expect(after).toHaveLength(1);
  expect(after[0]?.id).not.toBe(first?.id);
  expect(after[0]?.schedule).toBe('*/15 * * * *');
  expect((await tf('plan', '-input=false', '-no-color', '-detailed-exitcode')).code).toBe(0);
});
