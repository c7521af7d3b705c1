/**
 * Machines whose configs the service stores though the machine cannot run all of them:
 * imports of another organization's public fragment, of a fragment id that exists nowhere,
 * of another organization's private fragment, and a package placeholder no package
 * provides; and a model whose case is its module's own (viam:ufactory:xArm6). Stored through the official SDK, adopted, planned with no changes and a
 * warning naming each machine, the rest of the fleet planned alongside; status shows what
 * each machine runs.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSdk, type Sdk } from '../../src/api/sdk';
import { EmulatorService } from '../../src/api/emulator-control';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { clientOf } from '../emulator/helpers';
import { fleetform, newAdoptionProject, quickMachines } from './fleet-fixture';

jest.setTimeout(300_000);

type ViamClient = Awaited<ReturnType<Sdk['createViamClient']>>;

const MISSING = '45ab0c1d-0000-4000-8000-00000000dead';
const camera = (name: string, attributes: Record<string, unknown> = {}) => ({
  name,
  api: 'rdk:component:camera',
  model: 'rdk:builtin:fake',
  attributes,
});

let restoreEnv: () => void;
let emulator: RunningEmulator;
let dataDir: string;
let project: string;
let env: Record<string, string>;
let viam: ViamClient;
let sdk: Sdk;
const ids: { shared?: string; hidden?: string } = {};

/** A fragment of another organization, made with `fleetform emulator organization`. */
async function foreignFragment(organization: string, visibility: string, config: unknown): Promise<string> {
  const made = await fleetform(
    project,
    [
      'emulator',
      'organization',
      organization,
      '--fragment',
      `${organization}-rig`,
      '--visibility',
      visibility,
      '--fragment-config',
      JSON.stringify(config),
      '--json',
    ],
    env,
  );
  if (made.code !== 0) throw new Error(`emulator organization failed: ${made.stderr}`);
  return (JSON.parse(made.stdout) as { fragmentId: string }).fragmentId;
}

async function storeMachine(name: string, config: Record<string, unknown>): Promise<void> {
  const robotId = await viam.appClient.newRobot(emulator.credentials.locationId, name);
  const [part] = await viam.appClient.getRobotParts(robotId);
  if (!part) throw new Error(`machine ${name} has no part`);
  await viam.appClient.updateRobotPart(part.id, part.name, sdk.Struct.fromJson(config as never));
}

beforeAll(async () => {
  restoreEnv = quickMachines();
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-foreign-emu-'));
  emulator = await startEmulator({ dataDir, port: 0 });
  const c = emulator.credentials;
  env = { FLEETFORM_ENDPOINT: emulator.url, FLEETFORM_API_KEY: c.apiKey, FLEETFORM_API_KEY_ID: c.apiKeyId };
  project = await newAdoptionProject('ff-foreign-', 'foreign-fleet');
  sdk = await loadSdk();
  viam = await sdk.createViamClient({
    serviceHost: emulator.url,
    credentials: { type: 'api-key', authEntity: c.apiKeyId, payload: c.apiKey },
  });
  ids.shared = await foreignFragment('Globex', 'public', { components: [camera('shared-cam')] });
  ids.hidden = await foreignFragment('Umbrella', 'private', { components: [camera('hidden-cam')] });
  await storeMachine('borrower', { components: [camera('own-cam')], fragments: [ids.shared] });
  await storeMachine('rw-06', { components: [camera('own-cam')], fragments: [MISSING] });
  await storeMachine('peeker', { components: [camera('own-cam')], fragments: [{ id: ids.hidden }] });
  await storeMachine('inspector', {
    components: [camera('own-cam'), camera('detector', { model_path: '${packages.wrench-detector}/model.tflite' })],
  });
  await storeMachine('plain', { components: [camera('own-cam')] });
  // The module's manifest writes its model in mixed case: that is the model's name.
  const controls = await clientOf(emulator, EmulatorService);
  const viamOrg = await controls.createOrganization({ name: 'Viam', publicNamespace: 'viam' });
  const publisher = await clientOf(emulator, EmulatorService, { credentials: viamOrg });
  await publisher.publishModuleVersion({
    moduleId: 'viam:ufactory',
    version: '1.0.3',
    models: [{ api: 'rdk:component:arm', model: 'viam:ufactory:xArm6' }],
  });
  await storeMachine('arm-1', {
    modules: [{ type: 'registry', name: 'viam_ufactory', module_id: 'viam:ufactory', version: '~1.0' }],
    components: [{ name: 'arm', api: 'rdk:component:arm', model: 'viam:ufactory:xArm6', attributes: { host: '10.1.1.26' } }],
  });
});

afterAll(async () => {
  await emulator?.close();
  restoreEnv?.();
  for (const d of [dataDir, project]) if (d) await fs.rm(d, { recursive: true, force: true });
});

interface StatusMachine {
  readonly machine: string;
  readonly health: string;
  readonly fragmentErrors?: readonly string[];
  readonly resources: ReadonlyArray<{ readonly name: string; readonly state: string; readonly error: string }>;
}

/** `fleetform status --json` until every machine runs its latest config, or two minutes pass. */
async function settledStatus(): Promise<StatusMachine[]> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const status = await fleetform(project, ['status', '--json'], env);
    const machines = (
      JSON.parse(status.stdout) as { machines: Array<StatusMachine & { runningRevision?: string; latestRevision?: string }> }
    ).machines;
    const settled =
      machines.length === 6 &&
      machines.every((m) => m.runningRevision !== undefined && m.runningRevision === m.latestRevision) &&
      machines.every((m) => m.resources.every((r) => r.state === 'ready' || r.state === 'unhealthy'));
    if (settled || Date.now() > deadline) return machines;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

test('each is stored, adopted, planned with no changes and a warning naming it; status shows what each machine runs', async () => {
  const adopted = await fleetform(project, ['adopt'], env);
  expect(adopted.stderr).toBe('');
  expect(adopted.code).toBe(0);
  expect(adopted.stdout).not.toContain('left on the service');
  // No secret to read: adoption imports at once (no `adopt --finish` step).
  expect(adopted.stdout).toContain('Imported 8 objects into stack adopted.');

  const plan = await fleetform(project, ['plan'], env);
  expect(plan.stderr).toBe('');
  expect(plan.code).toBe(0);
  expect(plan.stdout).toContain('No changes.');
  const warnings = plan.stdout.split('\n').filter((l) => l.startsWith('Warning: '));
  const about = (machine: string) => warnings.filter((w) => w.includes(`machine ${machine}`) || w.includes(`.${machine}.`));
  // The public fragment of another organization is read as the service serves it: no warning.
  expect(about('borrower')).toEqual([]);
  expect(about('rw-06')).toEqual([
    expect.stringContaining(`config.fragments[0]: machine rw-06, fragment ${MISSING}: there is no fragment ${MISSING}`),
  ]);
  expect(about('rw-06')[0]).toContain(`runs without anything the fragment would bring`);
  expect(about('peeker')).toEqual([
    expect.stringContaining(
      `machine peeker, fragment ${ids.hidden}: there is no fragment ${ids.hidden} this machine's organization can read`,
    ),
  ]);
  expect(about('inspector')).toEqual([
    expect.stringContaining(
      'fleetform_machine.inspector.config.components[1].attributes.model_path: resource "detector": placeholder ${packages.wrench-detector} is left as written, and what reads it fails: ' +
        'failed to find a package named "wrench-detector"',
    ),
  ]);
  expect(about('inspector')[0]).toContain('declare a package named "wrench-detector" on the machine');
  expect(about('plain')).toEqual([]);
  expect(about('arm-1')).toEqual([]);
  expect(plan.stdout).not.toContain('lowercase');

  const machines = await settledStatus();
  const byName = new Map(machines.map((m) => [m.machine, m]));
  const resources = (name: string) => (byName.get(name)?.resources ?? []).map((r) => `${r.name} ${r.state}`).sort();
  expect(resources('borrower')).toEqual(['own-cam ready', 'shared-cam ready']);
  // A machine whose import is left out runs its own entries: healthy, as the service shows it.
  expect(resources('rw-06')).toEqual(['own-cam ready']);
  expect(resources('peeker')).toEqual(['own-cam ready']);
  expect(byName.get('rw-06')?.health).toBe('healthy');
  // The service's fragment error on the machine is shown beside it; the public import brings none.
  expect(byName.get('rw-06')?.fragmentErrors).toEqual([
    `fragments[0]: there is no fragment ${MISSING} this machine's organization can read (no fragment has that id, or it is another organization's private fragment)`,
  ]);
  expect(byName.get('peeker')?.fragmentErrors).toEqual([expect.stringContaining(`fragments[0]: there is no fragment ${ids.hidden}`)]);
  expect(byName.get('borrower')?.fragmentErrors).toBeUndefined();
  expect(byName.get('plain')?.health).toBe('healthy');
  expect(resources('arm-1')).toEqual(['arm ready']);
  expect(resources('inspector')).toEqual(['detector unhealthy', 'own-cam ready']);
  expect(byName.get('inspector')?.health).toBe('unhealthy');
  expect(byName.get('inspector')?.resources.find((r) => r.name === 'detector')?.error).toBe(
    'attributes: failed to find a package named "wrench-detector" for placeholder "packages.wrench-detector"',
  );
  const text = await fleetform(project, ['status'], env);
  expect(text.stdout).toContain(`  rw-06: fragment error: fragments[0]: there is no fragment ${MISSING}`);
  expect(text.stdout).toContain(
    '  inspector: resource detector (rdk:component:camera) unhealthy: attributes: failed to find a package named "wrench-detector"',
  );
});
