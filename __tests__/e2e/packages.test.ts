import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { FleetProvider, Machine, ModularResource, Module, Package } from '../../src';
import { openEmulatorProject, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(120_000);

let p: EmulatorProject;

beforeEach(async () => {
  p = await openEmulatorProject('ff-packages-');
});

afterEach(async () => {
  await p?.close();
});

/** Two inspectors running a tflite model from a package; `version` is the package version they download. */
function synthInspectors(version: string): void {
  const app = new App({ outdir: p.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new FleetProvider(stack, 'cloud', {});
  for (const name of ['inspector-1', 'inspector-2']) {
    const machine = new Machine(stack, name, { name });
    const tflite = new Module(machine, 'tflite', { moduleId: 'acme:sensors', version: '~1.2' });
    const detector = new Package(machine, 'detector', { name: 'box-detector', package: `${p.credentials.organizationId}/box-detector`, version, type: 'ml_model' });
    new ModularResource(machine, 'mlmodel', { name: 'mlmodel', api: 'rdk:service:mlmodel', model: tflite.model('pi-board'), attributes: { model_path: `${detector.path}/model.tflite` } });
  }
  app.synth();
}

async function storedConfig(name: string): Promise<Record<string, unknown>> {
  const entry = (await p.backend().read('fleet')).resources[`fleetform_machine.${name}`];
  if (!entry?.ids.part_id) throw new Error(`no part for ${name} in state`);
  return (await p.client.appClient.getMachinePart(entry.ids.part_id)).config;
}

test('packages reach the machine configs through plan and apply, and a changed version is an in-place update', async () => {
  synthInspectors('1');
  const apply = await p.run('apply', '--auto-approve');
  expect(apply.stderr).toBe('');
  expect(apply.code).toBe(0);
  for (const name of ['inspector-1', 'inspector-2']) {
    const config = await storedConfig(name);
    expect(config.packages).toEqual([{ name: 'box-detector', package: `${p.credentials.organizationId}/box-detector`, version: '1', type: 'ml_model' }]);
    expect((config.services as Array<{ attributes: unknown }>)[0]?.attributes).toEqual({ model_path: '${packages.ml_model.box-detector}/model.tflite' });
  }
  const again = await p.run('plan', '--detailed-exitcode');
  expect(again.stdout).toContain('No changes.');
  expect(again.code).toBe(0);

  synthInspectors('2');
  const plan = await p.run('plan', '--detailed-exitcode');
  expect(plan.code).toBe(2);
  expect(plan.stdout).toContain('config.packages.box-detector.version');
  expect(plan.stdout).toContain('Plan: 0 to add, 2 to change, 0 to destroy.');
});

test('a broken placeholder in the synthesized output stops the plan, naming the machine, the field and its packages; nothing reaches the service', async () => {
  synthInspectors('1');
  const file = path.join(p.outdir, 'stacks', 'fleet', 'cdk.tf.json');
  const text = await fs.readFile(file, 'utf8');
  await fs.writeFile(file, text.replace('packages.ml_model.box-detector}/model.tflite', 'packages.ml_model.box-detektor}/model.tflite'));
  const plan = await p.run('apply', '--auto-approve');
  expect(plan.code).toBe(1);
  const out = plan.stdout + plan.stderr;
  expect(out).toContain('fleetform_machine.inspector-1');
  expect(out).toContain('config.services[0].attributes.model_path');
  expect(out).toContain('failed to find a package named "box-detektor"; this machine\'s packages: box-detector (ml_model)');
  expect(await p.client.appClient.listMachines(p.credentials.locationId)).toEqual([]);
});
