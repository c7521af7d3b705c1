/**
 * A certain failure of a machine's config under the real Terraform CLI: `terraform plan`
 * stops on it with its path, cause and fix, and nothing is created; acknowledged on the
 * machine (`acknowledged`), it is a warning and the plan goes on.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { App, LocalBackend, TerraformStack } from 'cdktf';
import { FleetProvider, Machine, ModularResource, Module } from '../../src';
import { openEmulatorProject, type EmulatorProject } from '../e2e/fleet-fixture';
import { machinesOnService, requireTerraform, terraform, terraformHome } from './terraform-cli';

jest.setTimeout(300_000);

let project: EmulatorProject;
let env: NodeJS.ProcessEnv;
let stackDir: string;

beforeAll(async () => {
  requireTerraform();
  project = await openEmulatorProject('ff-terraform-acknowledged-');
  env = await terraformHome(project.dir, project.env);
  stackDir = path.join(project.outdir, 'stacks', 'fleet');
});

afterAll(async () => {
  await project?.close();
});

const tf = (...args: string[]) => terraform(stackDir, env, ...args);

test('terraform plan stops on an unacknowledged certain failure and goes on once it is acknowledged', async () => {
  const app = new App({ outdir: project.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new LocalBackend(stack, { path: path.join(project.dir, 'terraform.fleet.tfstate') });
  new FleetProvider(stack, 'cloud', {});
  const machine = new Machine(stack, 'rover', {
    acknowledged: [{ code: 'module-version', path: 'modules.acme_sensors.version', reason: 'pinned by hand' }],
  });
  const sensors = new Module(machine, 'sensors', { moduleId: 'acme:sensors', version: '~2' });
  new ModularResource(machine, 'board', { name: 'board-1', api: 'rdk:component:board', model: sensors.model('pi-board') });
  app.synth();
  const file = path.join(stackDir, 'cdk.tf.json');
  const acknowledged = await fs.readFile(file, 'utf8');
  const doc = JSON.parse(acknowledged) as { resource: { fleetform_machine: Record<string, { acknowledged?: unknown }> } };
  expect(Object.values(doc.resource.fleetform_machine)[0]?.acknowledged).toEqual({
    'modules.acme_sensors.version': { 'module-version': 'pinned by hand' },
  });
  for (const m of Object.values(doc.resource.fleetform_machine)) delete m.acknowledged;
  await fs.writeFile(file, JSON.stringify(doc));

  expect((await tf('init', '-input=false', '-no-color')).code).toBe(0);
  const refused = await tf('plan', '-input=false', '-no-color');
  expect(refused.code).toBe(1);
  const said = refused.stderr.replace(/[\s│]+/g, ' ');
  expect(said).toContain('invalid module version "~2"');
  expect(said).toContain('acknowledged: [{ code: \'module-version\', path: "modules.acme_sensors.version"');
  expect(await machinesOnService(project.dir)).toEqual([]);

  await fs.writeFile(file, acknowledged);
  const plan = await tf('plan', '-input=false', '-no-color');
  expect(plan.stderr).toBe('');
  expect(plan.code).toBe(0);
  expect(plan.stdout).toContain('fleetform_machine.rover will be created');
});
