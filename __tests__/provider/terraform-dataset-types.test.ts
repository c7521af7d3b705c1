/** The dataset kind's type under the real Terraform CLI against the emulator: a sequence dataset is created as one, and a new type replaces it. */
import * as path from 'node:path';
import { App, LocalBackend, TerraformStack } from 'cdktf';
import { Dataset, FleetProvider } from '../../src';
import type { EmulatorProject } from '../e2e/fleet-fixture';
import { openTerraformProject, type TerraformProject } from './terraform-project';

jest.setTimeout(300_000);

let t: TerraformProject;
let project: EmulatorProject;

beforeAll(async () => {
  t = await openTerraformProject('ff-terraform-datasets-');
  project = t.project;
});

afterAll(async () => {
  await t?.close();
});

const tf = (...args: string[]) => t.tf(...args);

function synth(type: 'binary' | 'sequence'): void {
  const app = new App({ outdir: project.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new LocalBackend(stack, { path: path.join(project.dir, 'terraform.fleet.tfstate') });
  new FleetProvider(stack, 'cloud', {});
  new Dataset(stack, 'runs', { type });
  app.synth();
}

test('a sequence dataset is created as one, plans nothing after, and a new type replaces it', async () => {
  const org = project.credentials.organizationId;
  const named = async (type?: 'binary' | 'sequence') =>
    (await project.client.datasetClient.listDatasets(org, type)).filter((d) => d.name === 'runs');
  synth('sequence');
  expect((await tf('init', '-input=false', '-no-color')).stderr).toBe('');
  const created = await tf('apply', '-input=false', '-no-color', '-auto-approve');
  expect(created.stderr).toBe('');
  expect(created.stdout).toContain('Apply complete! Resources: 1 added, 0 changed, 0 destroyed.');
  const [sequence] = await named('sequence');
  expect(sequence?.type).toBe('sequence');
  expect(await named('binary')).toEqual([]);
  expect((await tf('plan', '-input=false', '-no-color', '-detailed-exitcode')).code).toBe(0);

  synth('binary');
  const planned = await tf('plan', '-input=false', '-no-color');
  expect(planned.stdout).toMatch(/# fleetform_dataset\.runs must be replaced/);
  expect(planned.stdout).toMatch(/~ type\s+= "sequence" -> "binary" # forces replacement/);
  const replaced = await tf('apply', '-input=false', '-no-color', '-auto-approve');
  expect(replaced.stderr).toBe('');
  expect(replaced.stdout).toContain('Resources: 1 added, 0 changed, 1 destroyed.');
  const after = await named();
  expect(after.map((d) => d.type)).toEqual(['binary']);
  expect(after[0]?.id).not.toBe(sequence?.id);
  expect((await tf('plan', '-input=false', '-no-color', '-detailed-exitcode')).code).toBe(0);
});
