import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { FleetProvider, Machine, ModularResource, Module, Package } from '../../src';
import { EmulatorService } from '../../src/api/emulator-control';
import { openEmulatorProject, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(120_000);

let p: EmulatorProject;

const QUICK_MACHINES = {
  FLEETFORM_EMULATOR_CHECK_IN_INTERVAL: '50',
  FLEETFORM_EMULATOR_MODULE_START_TIME: '100',
  FLEETFORM_EMULATOR_RESOURCE_CONFIGURE_TIME: '0',
};

beforeEach(async () => {
  // The project's emulator runs its machines with quick check-ins and downloads.
  Object.assign(process.env, QUICK_MACHINES);
  p = await openEmulatorProject('ff-packages-');
  for (const version of ['1', '2']) {
    await p.client.packagesClient.createPackage(
      { organizationId: p.credentials.organizationId, name: 'box-detector', version, type: 'ml_model' },
      new Uint8Array(64 * 1024 + 5),
    );
  }
});

afterEach(async () => {
  await p?.close();
  for (const key of Object.keys(QUICK_MACHINES)) delete process.env[key];
});

interface PackageStatus {
  machines: { machine: string; health: string; packages?: { name: string; version: string; state: string; error: string }[] }[];
}

/** Runs `status --json` until `ok` holds of it; fails with the last answer after the deadline. */
async function statusUntil(ok: (s: PackageStatus) => boolean, deadlineMs = 30_000): Promise<PackageStatus> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const res = await p.runBare('status', '--json');
    if (res.code !== 0) throw new Error(`status failed: ${res.stderr}`);
    const parsed = JSON.parse(res.stdout) as PackageStatus;
    if (ok(parsed)) return parsed;
    if (Date.now() > until) throw new Error(`status did not reach the condition; last: ${res.stdout}`);
  }
}

/** Two inspectors running a tflite model from a package; `version` is the package version they download. */
function synthInspectors(version: string): void {
  const app = new App({ outdir: p.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new FleetProvider(stack, 'cloud', {});
  for (const name of ['inspector-1', 'inspector-2']) {
    const machine = new Machine(stack, name, { name });
    const tflite = new Module(machine, 'tflite', { moduleId: 'acme:sensors', version: '~1.2' });
    const detector = new Package(machine, 'detector', {
      name: 'box-detector',
      package: `${p.credentials.organizationId}/box-detector`,
      version,
      type: 'ml_model',
    });
    new ModularResource(machine, 'mlmodel', {
      name: 'mlmodel',
      api: 'rdk:service:mlmodel',
      model: tflite.model('pi-board'),
      attributes: { model_path: `${detector.path}/model.tflite` },
    });
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
    expect(config.packages).toEqual([
      { name: 'box-detector', package: `${p.credentials.organizationId}/box-detector`, version: '1', type: 'ml_model' },
    ]);
    expect((config.services as Array<{ attributes: unknown }>)[0]?.attributes).toEqual({
      model_path: '${packages.ml_model.box-detector}/model.tflite',
    });
  }
  const again = await p.run('plan', '--detailed-exitcode');
  expect(again.stdout).toContain('No changes.');
  expect(again.code).toBe(0);

  const landed = await statusUntil((s) => s.machines.length === 2 && s.machines.every((m) => m.health === 'healthy'));
  for (const m of landed.machines)
    expect(m.packages).toEqual([{ name: 'box-detector', type: 'ml_model', version: '1', state: 'ready', error: '' }]);
  const text = await p.runBare('status');
  expect(text.stdout).toMatch(/fleet\s+inspector-1\s+box-detector\s+ml_model\s+1\s+ready/);
  expect(text.stdout).toMatch(/fleet\s+inspector-2\s+box-detector\s+ml_model\s+1\s+ready/);

  // A package armed to fail: the machines report it FAILED and the resource using it unhealthy.
  await p.client.clientFor(EmulatorService).setMachineFaults({ specs: ['package=box-detector@2:fail'] });

  synthInspectors('2');
  const plan = await p.run('plan', '--detailed-exitcode');
  expect(plan.code).toBe(2);
  expect(plan.stdout).toContain('config.packages.box-detector.version');
  expect(plan.stdout).toContain('Plan: 0 to add, 2 to change, 0 to destroy.');
  expect((await p.run('apply', '--auto-approve')).code).toBe(0);
  const failed = await statusUntil((s) => s.machines.every((m) => m.packages?.[0]?.state === 'failed'));
  expect(failed.machines.map((m) => m.health)).toEqual(['unhealthy', 'unhealthy']);
  expect(failed.machines[0]?.packages?.[0]).toMatchObject({
    version: '2',
    error: 'package box-detector failed to load: its contents could not be unpacked',
  });
});

test('a package version the registry lacks stops the plan, naming the machine, the field and the versions it has', async () => {
  synthInspectors('7');
  const plan = await p.run('plan');
  expect(plan.code).toBe(1);
  const out = plan.stdout + plan.stderr;
  expect(out).toContain('fleetform_machine.inspector-1');
  expect(out).toContain('config.packages.box-detector.version');
  expect(out).toContain(
    `package box-detector: the registry has no ml_model ${p.credentials.organizationId}/box-detector at version 7; the registry has versions 1, 2`,
  );
});

test('a placeholder naming no package of the machine stops the plan, naming the machine, the field, its packages and the fix; acknowledged, it is a warning and the plan goes on', async () => {
  synthInspectors('1');
  const file = path.join(p.outdir, 'stacks', 'fleet', 'cdk.tf.json');
  const text = await fs.readFile(file, 'utf8');
  const broken = text.replace('packages.ml_model.box-detector}/model.tflite', 'packages.ml_model.box-detektor}/model.tflite');
  await fs.writeFile(file, broken);
  const refused = await p.run('plan');
  expect(refused.code).toBe(1);
  const out = refused.stdout + refused.stderr;
  expect(out).toContain('fleetform_machine.inspector-1');
  expect(out).toContain(
    'placeholder ${packages.ml_model.box-detektor} is left as written, and what reads it fails: failed to find a package named "box-detektor"; ' +
      "this machine's packages: box-detector (ml_model)",
  );
  expect(out).toContain(`acknowledged: [{ code: 'package-placeholder', path: "services.`);
  expect(out).not.toMatch(/\n\s+at /);

  // The same finding acknowledged on the machine, as Terraform JSON holds it.
  const doc = JSON.parse(broken) as { resource: { fleetform_machine: Record<string, { config: string; acknowledged?: unknown }> } };
  for (const machine of Object.values(doc.resource.fleetform_machine)) {
    const config = JSON.parse(machine.config) as { services: Array<{ name: string }> };
    machine.acknowledged = {
      [`services.${config.services[0]?.name}.attributes.model_path`]: { 'package-placeholder': 'renamed on the machine next week' },
    };
  }
  await fs.writeFile(file, JSON.stringify(doc));
  const plan = await p.run('plan');
  expect(plan.stderr).toBe('');
  expect(plan.code).toBe(0);
  expect(plan.stdout).toContain('# fleetform_machine.inspector-1 will be created');
  const warning = plan.stdout.split('\n').find((l) => l.includes('warning: config.services[0].attributes.model_path'));
  expect(warning).toContain('failed to find a package named "box-detektor"');
  expect(warning).toContain('(acknowledged: renamed on the machine next week)');
});
