/**
 * `fleetform adopt` round trip: an organization built at random (fixed seed) through the
 * official SDK alone is adopted into a fresh project; the generated code compiles with
 * `tsc --strict`, synthesizes, and plans with no changes; an edit to it plans as exactly
 * that edit; a second adoption leaves what the first manages alone.
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { createServiceClient } from '../../src/api/client';
import { loadSdk, type Sdk } from '../../src/api/sdk';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { fleetform, newAdoptionProject } from './fleet-fixture';
import { seededRandom as random } from '../seeded-random';

jest.setTimeout(240_000);

const ROOT = path.resolve(__dirname, '../..');
const SEED = 20261124;

type ViamClient = Awaited<ReturnType<Sdk['createViamClient']>>;

const next = random(SEED);
const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
const SENSOR_MODELS = ['hc-sr04', 'pi-board'];

/** A random attribute value: text (some with `${...}` and quotes), numbers, flags, lists and objects. */
function value(depth: number): unknown {
  const r = next();
  if (depth > 1 || r < 0.35) return pick(['11', 'it\'s "quoted"', '${environment.HOME}/x', 'line\nbreak', 'ü-ñ']);
  if (r < 0.55) return Math.round(next() * 1000) / 10;
  if (r < 0.65) return next() < 0.5;
  if (r < 0.8) return [value(depth + 1), value(depth + 1)];
  return { [pick(['timeout_ms', 'weird key', 'a-b'])]: value(depth + 1), nested_flag: false };
}

/** A random config of sensors (and sometimes vision) with secrets, dependencies and a section fleetform leaves alone. */
function randomConfig(index: number): Record<string, unknown> {
  const modules: Record<string, unknown>[] = [
    {
      type: 'registry',
      name: 'acme_sensors',
      module_id: 'acme:sensors',
      version: pick(['~1.2', '^1', '1.2.3']),
      env: { PATH: '/opt/acme/bin', API_TOKEN: `token-${index}` },
    },
  ];
  const components: Record<string, unknown>[] = [
    { name: 'board-1', api: 'rdk:component:board', model: 'acme:sensors:pi-board', attributes: {}, depends_on: [] },
  ];
  const count = 1 + Math.floor(next() * 3);
  for (let i = 0; i < count; i++) {
    components.push({
      name: `sensor-${i}`,
      api: 'rdk:component:sensor',
      model: `acme:sensors:${pick(SENSOR_MODELS)}`,
      attributes: { pin: value(0), extra: value(0) },
      depends_on: ['board-1'],
    });
  }
  const services: Record<string, unknown>[] = [];
  if (next() < 0.5) {
    modules.push({ type: 'registry', name: 'vision', module_id: 'acme:vision', version: '^1' });
    services.push({
      name: 'finder',
      api: 'rdk:service:vision',
      model: 'acme:vision:box-finder',
      attributes: { confidence: 0.5 },
      depends_on: [],
    });
  }
  return { modules, components, services, network: { bind_address: ':8080' } };
}

/** The config three machines share: the same modules, resources and secret. */
const SHARED = {
  modules: [{ type: 'registry', name: 'acme_sensors', module_id: 'acme:sensors', version: '~1.2', env: { API_TOKEN: 'shared-token' } }],
  components: [
    { name: 'board-1', api: 'rdk:component:board', model: 'acme:sensors:pi-board', attributes: { pins: ['11', '13'] }, depends_on: [] },
  ],
};

let emulator: RunningEmulator;
let dataDir: string;
let project: string;
let env: Record<string, string>;
let sdk: Sdk;
let viam: ViamClient;
const ids = { machines: new Map<string, string>(), locations: new Map<string, string>(), fragments: new Map<string, string>() };

async function newFragment(name: string, config: Record<string, unknown>): Promise<string> {
  const created = await viam.appClient.createFragment(emulator.credentials.organizationId, name, sdk.Struct.fromJson(config as never));
  if (!created) throw new Error(`fragment ${name} was not created`);
  ids.fragments.set(name, created.id);
  return created.id;
}

async function newMachine(locationId: string, name: string, config: Record<string, unknown>): Promise<void> {
  const robotId = await viam.appClient.newRobot(locationId, name);
  const [part] = await viam.appClient.getRobotParts(robotId);
  if (!part) throw new Error(`machine ${name} has no part`);
  await viam.appClient.updateRobotPart(part.id, part.name, sdk.Struct.fromJson(config as never));
  ids.machines.set(name, robotId);
}

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-adopt-emu-'));
  emulator = await startEmulator({ dataDir, port: 0 });
  const c = emulator.credentials;
  env = { FLEETFORM_ENDPOINT: emulator.url, FLEETFORM_API_KEY: c.apiKey, FLEETFORM_API_KEY_ID: c.apiKeyId };
  sdk = await loadSdk();
  viam = await sdk.createViamClient({
    serviceHost: emulator.url,
    credentials: { type: 'api-key', authEntity: c.apiKeyId, payload: c.apiKey },
  });

  const site = await viam.appClient.createLocation(c.organizationId, 'site-a');
  const lab = await viam.appClient.createLocation(c.organizationId, 'lab', site?.id);
  ids.locations.set('site-a', site?.id ?? '').set('lab', lab?.id ?? '');
  for (const name of ['picker-1', 'picker-2', 'picker-3']) await newMachine(c.locationId, name, SHARED);
  for (let i = 0; i < 3; i++) await newMachine(pick([c.locationId, site?.id ?? '', lab?.id ?? '']), `rover-${i}`, randomConfig(i));
  // A frame is declared in code like any other field of a component.
  await newMachine(lab?.id ?? '', 'legacy-cam', {
    components: [{ name: 'cam', api: 'rdk:component:camera', model: 'rdk:builtin:webcam', attributes: {}, frame: { parent: 'world' } }],
  });
  // A package in the registry (the SDK has no PackageService: our client uploads it) that a machine downloads.
  const ours = await createServiceClient({
    serviceHost: emulator.url,
    credentials: { type: 'api-key', authEntity: c.apiKeyId, payload: c.apiKey },
  });
  await ours.packagesClient.createPackage(
    { organizationId: c.organizationId, name: 'lookup', version: '2', type: 'archive', files: [{ name: 'lut.bin', size: 3 }] },
    new Uint8Array([1, 2, 3]),
  );
  await newMachine(lab?.id ?? '', 'mapper', {
    modules: [{ type: 'registry', name: 'acme_sensors', module_id: 'acme:sensors', version: '1.2.3' }],
    components: [
      {
        name: 'board-1',
        api: 'rdk:component:board',
        model: 'acme:sensors:pi-board',
        attributes: { table: '${packages.archive.lookup}/lut.bin' },
        depends_on: [],
      },
    ],
    packages: [{ name: 'lookup', package: `${c.organizationId}/lookup`, version: '2', type: 'archive' }],
  });
  // Fragments, drawn after the machines above so those stay as the seed made them: a base with a
  // variable, saved three times and tagged at its second revision; a rig nesting it; machines importing them.
  const board = { name: 'board-1', api: 'rdk:component:board', model: 'acme:sensors:pi-board', depends_on: [] };
  const base = {
    modules: [{ type: 'registry', name: 'acme_sensors', module_id: 'acme:sensors', version: '~1.2' }],
    components: [{ ...board, attributes: { pin: { $variable: { name: 'pin' } }, timeout_ms: 150, extra: value(0) } }],
  };
  const baseId = await newFragment('sensor-base', { ...base, components: [{ ...board, attributes: {} }] });
  const firstSave = await viam.appClient.updateFragment(baseId, 'sensor-base', sdk.Struct.fromJson(base as never));
  // SDK 0.61.1 has no SetFragmentTag: our client sets the tag.
  await ours.appClient.setFragmentTag(baseId, 'stable', firstSave?.revision ?? '');
  await viam.appClient.updateFragment(
    baseId,
    'sensor-base',
    sdk.Struct.fromJson({
      ...base,
      components: [{ ...board, attributes: { ...base.components[0]?.attributes, extra: value(0) } }],
    } as never),
  );
  const rigId = await newFragment('rig', {
    fragments: [{ id: baseId, version: 'stable', variables: { pin: '7' } }],
    modules: [{ type: 'registry', name: 'vision', module_id: 'acme:vision', version: '^1' }],
    services: [
      {
        name: 'finder',
        api: 'rdk:service:vision',
        model: 'acme:vision:box-finder',
        attributes: { confidence: Math.round(next() * 100) / 100 },
        depends_on: [],
      },
    ],
  });
  await newFragment('legacy-net', { network: { bind_address: ':9090' } });
  await newMachine(site?.id ?? '', 'arm-1', {
    fragments: [{ id: rigId, prefix: 'left' }],
    fragment_mods: [
      {
        fragment_id: rigId,
        mods: [
          { $set: { 'services.left-finder.attributes.confidence': 0.9 } },
          { $unset: { 'components.left-board-1.attributes.extra': 0 } },
        ],
      },
    ],
  });
  // A fragment variable that holds a secret: the machine's import sets it.
  const uplinkId = await newFragment('uplink', {
    components: [
      {
        name: 'uplink',
        api: 'rdk:component:generic',
        model: 'rdk:builtin:fake',
        attributes: { api_token: { $variable: { name: 'api_token' } } },
        depends_on: [],
      },
    ],
  });
  // Its own probe runs on the module and board the base brings.
  await newMachine(c.locationId, 'arm-2', {
    components: [{ name: 'probe', api: 'rdk:component:sensor', model: 'acme:sensors:hc-sr04', attributes: {}, depends_on: ['board-1'] }],
    fragments: [
      { id: baseId, version: '2', variables: { pin: String(Math.floor(next() * 40)) } },
      { id: uplinkId, variables: { api_token: 'fragment-token' } },
    ],
  });
  await newMachine(c.locationId, 'arm-old', { fragments: [{ id: ids.fragments.get('legacy-net') ?? '' }] });
  // An import written as the fragment's bare id, as older configs have it.
  await newMachine(c.locationId, 'arm-3', { fragments: [rigId] });

  await ours.close();
  const datasetId = await viam.dataClient.createDataset('boxes', c.organizationId);
  await viam.mlTrainingClient.submitTrainingJob(
    c.organizationId,
    datasetId,
    'box-detector',
    '1',
    sdk.mlTrainingApi.ModelType.OBJECT_DETECTION,
    ['box'],
  );

  project = await newAdoptionProject('ff-adopt-', 'adopted-fleet');
});

afterAll(async () => {
  await emulator?.close();
  for (const d of [dataDir, project]) if (d) await fs.rm(d, { recursive: true, force: true });
});

/** The secrets the adopted code reads, with the values the random organization holds. */
function secretEnv(stdout: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [, variable, machine, what] of stdout.matchAll(/^ {2}([A-Z0-9_]+) {2}\(([^:]+): (module|import of fragment)/gm)) {
    const first = (machine ?? '').split(', ')[0] ?? '';
    out[variable as string] =
      what !== 'module' ? 'fragment-token' : first.startsWith('picker') ? 'shared-token' : `token-${first.replace('rover-', '')}`;
  }
  return out;
}

test('adopt, compile strictly, plan nothing, edit one value, plan exactly that', async () => {
  const first = await fleetform(project, ['adopt'], env);
  expect(first.stderr).toBe('');
  expect(first.code).toBe(0);
  // The emulator's seeded location and dataset are the organization's like any other.
  // Every machine and fragment is adopted: frames, network settings and every other section are declared in code.
  expect(first.stdout).toContain('3 locations, 12 machines, 2 datasets, 1 training job, 4 fragments, 1 fragment tag');
  expect(first.stdout).not.toContain('config section "network"');
  expect(first.stdout).toContain('fleetform adopt --finish');
  const code = await fs.readFile(path.join(project, 'stacks', 'adopted.ts'), 'utf8');
  // Nothing secret is written to code: the tokens are read from the environment.
  expect(code).not.toMatch(/token-\d|shared-token|fragment-token/);
  expect(code).toMatch(/function pickerConfig\(machine: Machine\): Machine/);
  expect(code.match(/pickerConfig\(new Machine/g)).toHaveLength(3);
  // Fragments before the machines importing them, the nested one before the rig.
  const at = (text: string): number => code.indexOf(text);
  // Each with the lists its config holds, and none it has not.
  expect(at("const sensorBase = new Fragment(this, 'sensor-base', { emptyLists: ['components', 'modules'] });")).toBeGreaterThan(0);
  expect(at("const rig = new Fragment(this, 'rig', { emptyLists: ['services', 'modules'] });")).toBeGreaterThan(at('const sensorBase'));
  expect(at("const arm1 = new Machine(this, 'arm-1'")).toBeGreaterThan(at('const rig'));
  expect(code).toContain("pin: sensorBase.variable('pin')");
  expect(code).toMatch(/new FragmentTag\(this, 'sensor-base-stable', \{ fragment: sensorBase, tag: 'stable', revision: '2' \}\);/);
  expect(code).toMatch(/rig\.useFragment\(sensorBase, \{ version: 'stable', variables: \{ pin: '7' \} \}\);/);
  expect(code).toMatch(/arm1\.useFragment\(rig, \{\n\s+prefix: 'left',\n\s+mods: \[/);
  // A variable whose name looks secret is read from the environment, like a secret env entry.
  expect(code).toMatch(/arm2\.useFragment\(sensorBase, \{ version: '2', variables: \{ pin: '\d+' \} \}\);/);
  expect(code).toMatch(
    /new Component\(arm2, 'probe', \{\s+api: 'rdk:component:sensor',\s+model: 'acme:sensors:hc-sr04',\s+attributes: \{\},\s+dependsOn: \['board-1'\],?\s+\}\);/,
  );
  expect(code).toContain("frame: { parent: 'world' }");
  expect(code).toContain("network: { bind_address: ':8080' }");
  expect(code).toContain("arm2.useFragment(uplink, { variables: { api_token: Secret.fromEnv('ARM_2_UPLINK_API_TOKEN') } });");
  expect(first.stdout).toContain('ARM_2_UPLINK_API_TOKEN  (arm-2: import of fragment uplink, variable api_token)');
  // An import by its bare id is kept in that form.
  expect(code).toMatch(/arm3\.useFragment\(rig, \{ bareId: true \}\);/);
  expect(code).toMatch(/new Package\(mapper, 'lookup', \{ package: '[^']+\/lookup', version: '2', type: 'archive' \}\);/);

  const secrets = secretEnv(first.stdout);
  expect(Object.keys(secrets).length).toBe(5);
  // Without them --finish refuses, naming each one and where its value is now.
  const [lastSecret] = Object.keys(secrets).slice(-1);
  const unset = await fleetform(project, ['adopt', '--finish'], { ...env, ...secrets, [lastSecret ?? '']: '' });
  expect(unset.code).not.toBe(0);
  expect(unset.stderr).toContain(`1 secret variable(s) the adopted code reads are not set: ${lastSecret} (`);
  expect(unset.stderr).toContain('--allow-missing-secrets');
  const withSecrets = { ...env, ...secrets };
  const finish = await fleetform(project, ['adopt', '--finish'], withSecrets);
  expect(finish.stderr).toBe('');
  expect(finish.stdout).toContain('Imported 23 objects into stack adopted');

  const tsc = await promisify(execFile)(
    process.execPath,
    [
      path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
      '--noEmit',
      '--strict',
      '--skipLibCheck',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      'main.ts',
    ],
    { cwd: project },
  ).catch((err: { stdout?: string; code?: number }) => ({ stdout: err.stdout ?? String(err), stderr: '', failed: true }));
  expect(tsc.stdout).toBe('');

  const plan = await fleetform(project, ['plan'], withSecrets);
  expect(plan.stderr).toBe('');
  expect(plan.stdout).toContain('No changes.');

  const edited = code.replace("pins: ['11', '13']", "pins: ['11', '15']");
  expect(edited).not.toBe(code);
  await fs.writeFile(path.join(project, 'stacks', 'adopted.ts'), edited);
  const changed = await fleetform(project, ['plan', '--detailed-exitcode'], withSecrets);
  expect(changed.code).toBe(2);
  expect(changed.stdout).toContain('Plan: 0 to add, 3 to change, 0 to destroy.');
  expect(changed.stdout).toContain('config.components.board-1.attributes.pins');

  // An edit to a fragment plans as that edit alone: the machines importing it are not rewritten.
  const fragmentEdit = code.replace('timeout_ms: 150', 'timeout_ms: 200');
  expect(fragmentEdit).not.toBe(code);
  await fs.writeFile(path.join(project, 'stacks', 'adopted.ts'), fragmentEdit);
  const fragmentChanged = await fleetform(project, ['plan', '--detailed-exitcode'], withSecrets);
  expect(fragmentChanged.stderr).toBe('');
  expect(fragmentChanged.code).toBe(2);
  expect(fragmentChanged.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
  expect(fragmentChanged.stdout).toContain('config.components.board-1.attributes.timeout_ms');
  expect(fragmentChanged.stdout).toMatch(/fleetform_fragment\.sensor-base/);

  // Once adopted, the objects belong to that stack: a second adoption names and skips them.
  const again = await fleetform(project, ['adopt', '--out', 'stacks/again.ts', '--stack-name', 'again'], withSecrets);
  expect(again.code).toBe(0);
  expect(again.stdout).toContain('0 locations, 0 machines, 0 datasets, 0 training jobs');
  expect(again.stdout).toMatch(/machine picker-1 \([^)]+\): another stack manages it/);
  expect(again.stdout).toContain('0 fragments, 0 fragment tags');
  expect(again.stdout).toMatch(/fragment rig \([^)]+\): another stack manages it/);
  const lab = await fleetform(
    project,
    ['adopt', '--out', 'stacks/lab.ts', '--stack-name', 'lab', '--location', ids.locations.get('lab') ?? ''],
    withSecrets,
  );
  expect(lab.stdout).toContain('0 locations, 0 machines, 0 datasets');
  expect(lab.stdout).toMatch(/location lab \([^)]+\): another stack manages it/);
  expect(lab.stdout).not.toContain('location site-a');
  const unknownLocation = await fleetform(project, ['adopt', '--out', 'stacks/x.ts', '--location', 'no-such-location'], withSecrets);
  expect(unknownLocation.code).toBe(1);
  expect(unknownLocation.stderr).toContain('has no location "no-such-location"');
  const refused = await fleetform(project, ['adopt'], withSecrets);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('stacks/adopted.ts exists');
});
