/**
 * `fleetform adopt --terraform`: the generated code carries an import block per adopted
 * object (fragments and their tags included), and the real `terraform plan` of its synthesized stack, through the provider,
 * imports every one of them with nothing to add, change or destroy.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createServiceClient } from '../../src/api/client';
import { loadSdk } from '../../src/api/sdk';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { fleetform } from '../e2e/fleet-fixture';
import { requireTerraform, terraform, terraformHome } from './terraform-cli';

jest.setTimeout(240_000);

const ROOT = path.resolve(__dirname, '../..');
let emulator: RunningEmulator;
let dataDir: string;
let project: string;
let env: Record<string, string>;

const SENSORS = {
  modules: [{ type: 'registry', name: 'acme_sensors', module_id: 'acme:sensors', version: '~1.2', env: { PATH: '/opt/acme/bin' } }],
  components: [
    {
      name: 'ultrasonic-1',
      api: 'rdk:component:sensor',
      model: 'acme:sensors:hc-sr04',
      attributes: { trigger_pin: '11', timeout_ms: 150 },
      depends_on: [],
    },
  ],
};

beforeAll(async () => {
  requireTerraform();
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-adopt-tf-emu-'));
  emulator = await startEmulator({ dataDir, port: 0 });
  const c = emulator.credentials;
  env = { FLEETFORM_ENDPOINT: emulator.url, FLEETFORM_API_KEY: c.apiKey, FLEETFORM_API_KEY_ID: c.apiKeyId };
  const sdk = await loadSdk();
  const viam = await sdk.createViamClient({
    serviceHost: emulator.url,
    credentials: { type: 'api-key', authEntity: c.apiKeyId, payload: c.apiKey },
  });
  // Machine configs written as the official CLI writes them (JSON text, stored in its key order).
  const ours = await createServiceClient({
    serviceHost: emulator.url,
    credentials: { type: 'api-key', authEntity: c.apiKeyId, payload: c.apiKey },
  });
  const dock = await viam.appClient.createLocation(c.organizationId, 'dock');
  for (const [name, location] of [
    ['sorter-1', c.locationId],
    ['sorter-2', dock?.id ?? ''],
  ] as const) {
    const robotId = await viam.appClient.newRobot(location, name);
    const [part] = await viam.appClient.getRobotParts(robotId);
    await ours.appClient.updateMachinePart(part?.id ?? '', part?.name ?? '', SENSORS);
  }
  // Fragments: a kit with a variable, tagged, nested in a base a third machine imports at the tag.
  const kit = await viam.appClient.createFragment(
    c.organizationId,
    'kit',
    sdk.Struct.fromJson({
      ...SENSORS,
      components: [{ ...SENSORS.components[0], attributes: { trigger_pin: { $variable: { name: 'pin' } } } }],
    } as never),
  );
  const base = await viam.appClient.createFragment(
    c.organizationId,
    'sorter-base',
    sdk.Struct.fromJson({ fragments: [{ id: kit?.id ?? '', variables: { pin: '13' } }] } as never),
  );
  // SDK 0.61.1 has no SetFragmentTag: our client sets the tag.
  await ours.appClient.setFragmentTag(base?.id ?? '', 'stable', base?.revision ?? '');
  const robotId = await viam.appClient.newRobot(dock?.id ?? '', 'sorter-3');
  const [part] = await viam.appClient.getRobotParts(robotId);
  await ours.appClient.updateMachinePart(part?.id ?? '', part?.name ?? '', {
    fragments: [{ id: base?.id ?? '', version: 'stable', prefix: 'left' }],
  });
  await ours.close();

  project = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-adopt-tf-'));
  await fs.mkdir(path.join(project, 'node_modules'));
  for (const m of ['cdktf', 'constructs', 'tsx'])
    await fs.symlink(path.join(ROOT, 'node_modules', m), path.join(project, 'node_modules', m));
  await fs.symlink(ROOT, path.join(project, 'node_modules', 'fleetform'));
  await fs.writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'adopted-fleet', private: true }));
});

afterAll(async () => {
  await emulator?.close();
  for (const d of [dataDir, project]) if (d) await fs.rm(d, { recursive: true, force: true });
});

test('adopt --terraform, then terraform plan imports everything and changes nothing', async () => {
  const adopted = await fleetform(project, ['adopt', '--terraform', '--no-jobs'], env);
  expect(adopted.stderr).toBe('');
  expect(adopted.stdout).toContain('2 locations, 3 machines, 1 dataset, 0 training jobs, 2 fragments, 1 fragment tag');
  expect(adopted.stdout).toContain('`cdktf deploy` (or `terraform apply`) adopts them');
  const code = await fs.readFile(path.join(project, 'stacks', 'adopted.ts'), 'utf8');
  expect(code.match(/\.importFrom\('/g)).toHaveLength(9);
  expect(code).toMatch(/sorterBaseStable\.importFrom\('[^'/]+\/stable'\);/);
  // No fleetform state is written on this path.
  await expect(fs.stat(path.join(project, '.fleetform', 'state'))).rejects.toThrow();

  const synth = await fleetform(project, ['synth'], env);
  expect(synth.code).toBe(0);
  const stackDir = path.join(project, 'cdktf.out', 'stacks', 'adopted');
  const tfEnv = await terraformHome(project, env);
  const init = await terraform(stackDir, tfEnv, 'init', '-input=false', '-no-color');
  expect(init.stderr).toBe('');
  const plan = await terraform(stackDir, tfEnv, 'plan', '-input=false', '-no-color');
  expect(plan.stderr).toBe('');
  expect(plan.stdout).toContain('Plan: 9 to import, 0 to add, 0 to change, 0 to destroy.');
});
