/**
 * A machine's health_gate under the real Terraform CLI: create and update wait for the
 * machine's health, so machines chained with depends_on change one after the other and a
 * change that crashes the first machine never reaches the next; with an analysis, neither
 * does a change whose first machine stays healthy but logs errors past the bound.
 */
import * as path from 'node:path';
import { App, LocalBackend, TerraformStack } from 'cdktf';
import { EmulatorService } from '../../src/api/emulator-control';
import { FleetProvider, Machine, Metric, ModularResource, Module, type AnalysisProps } from '../../src';
import { openEmulatorProject, quickMachines, type EmulatorProject } from '../e2e/fleet-fixture';
import { requireTerraform, terraform, terraformHome } from './terraform-cli';

jest.setTimeout(300_000);

let project: EmulatorProject;
let env: NodeJS.ProcessEnv;
let stackDir: string;

let restoreEnv: (() => void) | undefined;

beforeAll(async () => {
  requireTerraform();
  restoreEnv = quickMachines();
  project = await openEmulatorProject('ff-terraform-health-gate-');
  env = await terraformHome(project.dir, project.env);
  stackDir = path.join(project.outdir, 'stacks', 'fleet');
});

afterAll(async () => {
  await project?.close();
  restoreEnv?.();
});

const tf = (...args: string[]) => terraform(stackDir, env, ...args);

/** Two machines, the second after the first: a wave of one, then the next; each gate with `analysis` when given. */
function synth(policy: string, analysis?: readonly AnalysisProps[]): void {
  const app = new App({ outdir: project.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new LocalBackend(stack, { path: path.join(project.dir, 'terraform.fleet.tfstate') });
  new FleetProvider(stack, 'cloud', {});
  let previous: Machine | undefined;
  for (const name of ['canary', 'rest']) {
    const machine = new Machine(stack, name, {
      name,
      healthGate: { timeout: '20s', settle: '200ms', ...(analysis ? { analysis } : {}) },
    });
    if (previous) machine.dependsOn = [`${Machine.tfResourceType}.${previous.friendlyUniqueId}`];
    const sensors = new Module(machine, 'sensors', { moduleId: 'acme:sensors', version: policy });
    new ModularResource(machine, 'board', { name: 'board-1', api: 'rdk:component:board', model: sensors.model('pi-board') });
    previous = machine;
  }
  app.synth();
}

async function runningVersion(name: string): Promise<string | undefined> {
  const machines = await project.client.appClient.listMachines(project.credentials.locationId);
  const machine = machines.find((m) => m.name === name);
  const parts = await project.client.appClient.getMachineParts(machine?.id ?? '');
  const config = parts[0]?.config as { modules?: { version?: string }[] };
  return config.modules?.[0]?.version;
}

test('create waits for health; a crashing update stops at the first machine with the failure named, the second untouched', async () => {
  synth('~1.2');
  expect((await tf('init', '-input=false', '-no-color')).stderr).toBe('');
  const create = await tf('apply', '-input=false', '-no-color', '-auto-approve');
  expect(create.stderr).toBe('');
  expect(create.stdout).toContain('Apply complete! Resources: 2 added, 0 changed, 0 destroyed.');
  expect((await tf('plan', '-input=false', '-no-color', '-detailed-exitcode')).code).toBe(0);

  const controls = project.client.clientFor(EmulatorService);
  await controls.setMachineFaults({ specs: ['module=acme:sensors@1.3.0:crash'] });
  try {
    synth('~1.3');
    const update = await tf('apply', '-input=false', '-no-color', '-auto-approve');
    expect(update.code).toBe(1);
    const text = update.stderr.replace(/\s+/g, ' ');
    expect(text).toContain('machine canary did not pass its health gate: unhealthy for');
    expect(text).toContain('module acme_sensors');
    expect(text).toMatch(/log: \S+ rdk\.modmanager: module acme_sensors \(acme:sensors@1\.3\.0\) crashed/);
    expect(await runningVersion('canary')).toBe('~1.3');
    expect(await runningVersion('rest')).toBe('~1.2');
  } finally {
    await controls.setMachineFaults({ specs: [] });
  }
});

test('a health analysis stops the chain on evidence: the first machine logs errors past its bound, the second is untouched', async () => {
  const analysis: AnalysisProps[] = [
    { name: 'errors', metric: Metric.logRate({ level: 'error' }), max: 5, interval: '1s', count: 2 },
    { name: 'calibration', metric: Metric.jobFailures({ job: 'calibrate' }), max: 0, interval: '1s' },
  ];
  synth('~1.2', analysis);
  expect((await tf('init', '-input=false', '-no-color')).stderr).toBe('');
  const good = await tf('apply', '-input=false', '-no-color', '-auto-approve');
  expect(good.stderr).toBe('');
  expect(good.code).toBe(0);
  expect((await tf('plan', '-input=false', '-no-color', '-detailed-exitcode')).code).toBe(0);

  const controls = project.client.clientFor(EmulatorService);
  await controls.setMachineFaults({ specs: ['logs=acme:sensors@1.3.0:error:600/min'] });
  try {
    synth('~1.3', analysis);
    const update = await tf('apply', '-input=false', '-no-color', '-auto-approve');
    expect(update.code).toBe(1);
    const text = update.stderr.replace(/\s+/g, ' ');
    expect(text).toMatch(
      /machine canary did not pass its health analysis: analysis errors failed 1 of 1 measurement\(s\), more than failure_limit 0: log lines at error a minute on canary \d{3}(\.\d+)?; the bound is at most 5/,
    );
    expect(await runningVersion('canary')).toBe('~1.3');
    expect(await runningVersion('rest')).toBe('~1.2');
  } finally {
    await controls.setMachineFaults({ specs: [] });
  }
});
