/**
 * A machine config that certainly fails one of its items, in code: `validate`, `plan` and
 * `apply` refuse it and write nothing; a machine stored broken is adopted with an
 * acknowledgment of each certain failure and plans no changes; without one, its error shows.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSdk, type Sdk } from '../../src/api/sdk';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { fleetform, newAdoptionProject } from './fleet-fixture';

jest.setTimeout(300_000);

type ViamClient = Awaited<ReturnType<Sdk['createViamClient']>>;

let emulator: RunningEmulator;
let dataDir: string;
let project: string;
let env: Record<string, string>;
let sdk: Sdk;
let viam: ViamClient;
let partId: string;

/** Stored as a machine runs it: a misspelt model's module, and a version that is no policy. */
const BROKEN = {
  components: [
    { name: 'ultrasonic-1', api: 'rdk:component:sensor', model: 'acme:distanse:ultrasonic' },
    { name: 'board', api: 'rdk:component:board', model: 'rdk:builtin:fake' },
  ],
  services: [],
  modules: [{ type: 'registry', name: 'acme_distance', module_id: 'acme:distance', version: '~2' }],
};

async function storedConfig(): Promise<unknown> {
  const part = await viam.appClient.getRobotPart(partId);
  return JSON.parse(part.configJson) as unknown;
}

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-certain-emu-'));
  emulator = await startEmulator({ dataDir, port: 0 });
  const c = emulator.credentials;
  env = { FLEETFORM_ENDPOINT: emulator.url, FLEETFORM_API_KEY: c.apiKey, FLEETFORM_API_KEY_ID: c.apiKeyId };
  sdk = await loadSdk();
  viam = await sdk.createViamClient({
    serviceHost: emulator.url,
    credentials: { type: 'api-key', authEntity: c.apiKeyId, payload: c.apiKey },
  });
  const robotId = await viam.appClient.newRobot(c.locationId, 'rover');
  const [part] = await viam.appClient.getRobotParts(robotId);
  if (!part) throw new Error('the machine has no part');
  partId = part.id;
  // The service stores a config that certainly fails items: the machine runs the rest.
  await viam.appClient.updateRobotPart(part.id, part.name, sdk.Struct.fromJson(BROKEN as never));
  project = await newAdoptionProject('ff-certain-', 'certain');
});

afterAll(async () => {
  await emulator?.close();
  for (const d of [dataDir, project]) if (d) await fs.rm(d, { recursive: true, force: true });
});

test('adopted with its acknowledgments it plans no changes; without one, validate and plan fail at its path and nothing is written', async () => {
  const adopted = await fleetform(project, ['adopt'], env);
  expect(adopted.stderr).toBe('');
  expect(adopted.code).toBe(0);
  const file = path.join(project, 'stacks', 'adopted.ts');
  const code = await fs.readFile(file, 'utf8');
  expect(code).toContain("code: 'model-module-mismatch'");
  expect(code).toContain("path: 'components.ultrasonic-1.model'");
  expect(code).toContain("code: 'module-version'");
  expect(code).toContain("path: 'modules.acme_distance.version'");
  const plan = await fleetform(project, ['plan'], env);
  expect(plan.stderr).toBe('');
  expect(plan.code).toBe(0);
  expect(plan.stdout).toContain('No changes.');

  // The model's acknowledgment removed: its finding is an error again, everywhere.
  const without = code.replace(/\s*\{\s*code: 'model-module-mismatch',[^}]*\},?/, '');
  expect(without).not.toContain('model-module-mismatch');
  await fs.writeFile(file, without);
  const validate = await fleetform(project, ['validate'], env);
  expect(validate.code).toBe(1);
  expect(validate.stderr).toContain('will not start: model "acme:distanse:ultrasonic" needs a module with module_id "acme:distanse"');
  expect(validate.stderr).toContain('acknowledged: [{ code: \'model-module-mismatch\', path: "components.ultrasonic-1.model"');
  expect(validate.stderr).not.toMatch(/\n\s+at /);
  const refused = await fleetform(project, ['plan'], env);
  expect(refused.code).toBe(1);
  expect(`${refused.stdout}${refused.stderr}`).toContain('acme:distanse');
  expect(`${refused.stdout}${refused.stderr}`).not.toMatch(/\n\s+at /);

  // A change beside it is not applied while the error stands: the stored config is left as it is.
  const changed = without.replace("model: 'rdk:builtin:fake'", "model: 'rdk:builtin:fake', attributes: { pins: 40 }");
  expect(changed).not.toBe(without);
  await fs.writeFile(file, changed);
  const apply = await fleetform(project, ['apply', '--auto-approve'], env);
  expect(apply.code).toBe(1);
  expect(await storedConfig()).toEqual(BROKEN);
});
