/**
 * An organization with default fragments is adopted: the defaults become one
 * `OrganizationDefaults` whose fragments refer to the adopted `Fragment`s, and a machine
 * created with them imported (typed variables: a number, a boolean, an object; a prefix; a
 * tag as its version) becomes a `Machine` importing them exactly so. The plan after adopting
 * has no changes.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createServiceClient } from '../../src/api/client';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { fleetform } from './fleet-fixture';

jest.setTimeout(300_000);

const ROOT = path.resolve(__dirname, '../..');

let emulator: RunningEmulator | undefined;
const dirs: string[] = [];

afterAll(async () => {
  await emulator?.close();
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
});

test('default fragments and a machine importing them with typed variables, a prefix and a tag round-trip through adopt', async () => {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-adopt-defaults-emu-'));
  const project = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-adopt-defaults-'));
  dirs.push(dataDir, project);
  emulator = await startEmulator({ dataDir, port: 0 });
  const c = emulator.credentials;
  const env = { FLEETFORM_ENDPOINT: emulator.url, FLEETFORM_API_KEY: c.apiKey, FLEETFORM_API_KEY_ID: c.apiKeyId };
  const client = await createServiceClient({
    serviceHost: emulator.url,
    credentials: { type: 'api-key', authEntity: c.apiKeyId, payload: c.apiKey },
  });
  try {
    const board = { name: 'board', api: 'rdk:component:board', model: 'rdk:builtin:fake' };
    const attributes = {
      pin: { $variable: { name: 'pin' } },
      fast: { $variable: { name: 'fast' } },
      limits: { $variable: { name: 'limits' } },
    };
    const rig = await client.appClient.createFragment(c.organizationId, 'rig', { components: [{ ...board, attributes }] });
    await client.appClient.setFragmentTag(rig.id, 'stable', '1');
    const variables = { pin: 11, fast: true, limits: { max: 3, names: ['x'] } };
    const defaults = [{ id: rig.id, version: 'stable', prefix: 'front', variables }];
    await client.appClient.setDefaultFragments(c.organizationId, defaults);
    const machineId = await client.appClient.newMachine('rover', c.locationId);
    expect((await client.appClient.getMachineParts(machineId))[0]?.config).toEqual({ fragments: defaults });
  } finally {
    await client.close();
  }

  await fs.mkdir(path.join(project, 'node_modules'));
  for (const m of ['cdktf', 'constructs', 'tsx', '@types'])
    await fs.symlink(path.join(ROOT, 'node_modules', m), path.join(project, 'node_modules', m));
  await fs.symlink(ROOT, path.join(project, 'node_modules', 'fleetform'));
  await fs.writeFile(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'defaults-fleet', private: true, dependencies: { cdktf: '*', fleetform: '*' } }),
  );

  const adopted = await fleetform(project, ['adopt'], env);
  expect(adopted.stderr).toBe('');
  expect(adopted.code).toBe(0);
  const code = await fs.readFile(path.join(project, 'stacks', 'adopted.ts'), 'utf8');
  expect(code).toContain("new OrganizationDefaults(this, 'defaults', {");
  expect(code).toMatch(/fragment: rig,\s+version: 'stable',\s+prefix: 'front',/);
  expect(code).toMatch(/rover\.useFragment\(rig, \{/);
  expect(code).toMatch(/pin: 11,\s+fast: true,\s+limits: \{/);

  const plan = await fleetform(project, ['plan', '--detailed-exitcode'], env);
  expect(plan.stderr).toBe('');
  expect(plan.stdout).toContain('No changes.');
  expect(plan.code).toBe(0);
});
