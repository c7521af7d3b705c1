/**
 * A machine stored with a module pinned to a version that needs a newer viam-server than
 * the machine reports is adopted with an acknowledgment of that certain failure, read from
 * the registry and the machine's summary, so the plan after adopting says "No changes";
 * without it, the plan names the module's version and the fix.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSdk } from '../../src/api/sdk';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { fleetform, newAdoptionProject } from './fleet-fixture';

jest.setTimeout(300_000);

let emulator: RunningEmulator;
let dataDir: string;
let project: string;
let env: Record<string, string>;

/** A board from acme:sensors, pinned to 1.2.5 (seeded in the emulator's registry). */
const STORED = {
  components: [{ name: 'board-1', api: 'rdk:component:board', model: 'acme:sensors:pi-board' }],
  services: [],
  modules: [{ type: 'registry', name: 'acme_sensors', module_id: 'acme:sensors', version: '1.2.5' }],
};

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-adopt-server-emu-'));
  emulator = await startEmulator({ dataDir, port: 0 });
  const c = emulator.credentials;
  env = { FLEETFORM_ENDPOINT: emulator.url, FLEETFORM_API_KEY: c.apiKey, FLEETFORM_API_KEY_ID: c.apiKeyId };
  const sdk = await loadSdk();
  const viam = await sdk.createViamClient({
    serviceHost: emulator.url,
    credentials: { type: 'api-key', authEntity: c.apiKeyId, payload: c.apiKey },
  });
  const robotId = await viam.appClient.newRobot(c.locationId, 'old-rover');
  const [part] = await viam.appClient.getRobotParts(robotId);
  if (!part) throw new Error('the machine has no part');
  await viam.appClient.updateRobotPart(part.id, part.name, sdk.Struct.fromJson(STORED as never));
  project = await newAdoptionProject('ff-adopt-server-', 'adopt-server');
  for (const args of [
    ['emulator', 'module-version', 'acme:sensors', '1.2.5', '--min-viam-server', '9.0.0'],
    ['emulator', 'viam-server', 'old-rover', '0.98.0'],
  ]) {
    const res = await fleetform(project, args, env);
    if (res.code !== 0) throw new Error(`${args.join(' ')} failed: ${res.stdout}${res.stderr}`);
  }
});

afterAll(async () => {
  await emulator?.close();
  for (const d of [dataDir, project]) if (d) await fs.rm(d, { recursive: true, force: true });
});

test('adopted with the acknowledgment it plans no changes; without it the plan refuses, naming the version and the fix', async () => {
  const adopted = await fleetform(project, ['adopt'], env);
  expect(adopted.stderr).toBe('');
  expect(adopted.code).toBe(0);
  const file = path.join(project, 'stacks', 'adopted.ts');
  const code = await fs.readFile(file, 'utf8');
  expect(code).toContain("code: 'module-viam-server'");
  expect(code).toContain("path: 'modules.acme_sensors.version'");
  const plan = await fleetform(project, ['plan'], env);
  expect(plan.code).toBe(0);
  expect(plan.stdout).toContain('No changes.');

  await fs.writeFile(file, code.replace(/\s*\{\s*code: 'module-viam-server',[^}]*\},?/, ''));
  const refused = await fleetform(project, ['plan'], env);
  const out = `${refused.stdout}${refused.stderr}`;
  expect(refused.code).toBe(1);
  expect(out).toContain('acme:sensors@1.2.5 needs viam-server 9.0.0; the machine runs 0.98.0');
  expect(out).not.toMatch(/\n\s+at /);
});
