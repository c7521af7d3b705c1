/**
 * Configs people wrote for real machines (the fixture corpus, and hand-written ones in the
 * same forms), each stored on the emulator through the official SDK, adopted by
 * `fleetform adopt`, planned with no changes, and synthesized back to the same config
 * (JSON-equal, key order aside).
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSdk, type Sdk } from '../../src/api/sdk';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { configSecrets, isSecretEnvEntry, unescapeTemplate } from '../../src/domain';
import { secretVariableName } from '../../src/engine/adopt/machine-code';
import { pathKeys, withValueAt } from '../../src/domain/secret-reference';
import { fleetform } from './fleet-fixture';
import { realConfigs } from '../fixtures/real-configs';
import { HAND_WRITTEN } from './real-config-forms';
import { differenceLine } from './first-difference';

jest.setTimeout(600_000);

const ROOT = path.resolve(__dirname, '../..');
type ViamClient = Awaited<ReturnType<Sdk['createViamClient']>>;

let emulator: RunningEmulator;
let dataDir: string;
let project: string;
let env: Record<string, string>;
let sdk: Sdk;
let viam: ViamClient;

/**
 * Corpus configs the machine server cannot load at all, which the emulator refuses (and
 * fleetform would too): each with what its refusal names.
 */
const REFUSED: Readonly<Record<string, string>> = {
  // An API key handler in the older form (`key`, no `keys` list): current viam-server rejects the whole config.
  'viamrobotics__rdk__robots-configs-fake_process_local_auth.json': 'auth.handlers[0].config',
};

/** Every machine config to store, by the machine name it gets. */
const machines = new Map<string, Record<string, unknown>>();
/** The file each machine's config came from, by machine name. */
const fileOf = new Map<string, string>();
/** The secrets adopted code reads, with the values the configs hold. */
const secrets: Record<string, string> = {};

/** A machine name from a fixture file name: letters, digits and dashes. */
function machineName(file: string): string {
  return file
    .replace(/\.json$/, '')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(-50)
    .replace(/^-+/, '');
}

function collectSecrets(name: string, config: Record<string, unknown>): void {
  for (const s of configSecrets(config))
    if (typeof s.value === 'string') secrets[secretVariableName(name, ...s.steps.map(String))] = s.value;
  for (const m of Array.isArray(config.modules) ? config.modules : []) {
    const mod = m as { name?: unknown; env?: Record<string, unknown> };
    for (const [key, value] of Object.entries(mod.env ?? {})) {
      if (typeof value === 'string' && isSecretEnvEntry(key, value)) secrets[secretVariableName(name, String(mod.name), key)] = value;
    }
  }
}

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-real-emu-'));
  emulator = await startEmulator({ dataDir, port: 0 });
  const c = emulator.credentials;
  env = { FLEETFORM_ENDPOINT: emulator.url, FLEETFORM_API_KEY: c.apiKey, FLEETFORM_API_KEY_ID: c.apiKeyId };
  sdk = await loadSdk();
  viam = await sdk.createViamClient({
    serviceHost: emulator.url,
    credentials: { type: 'api-key', authEntity: c.apiKeyId, payload: c.apiKey },
  });
  const corpus = [...realConfigs().map((r) => ({ file: r.file, config: r.config })), ...HAND_WRITTEN];
  for (const { file, config } of corpus) {
    if (REFUSED[file] !== undefined) {
      const robotId = await viam.appClient.newRobot(c.locationId, machineName(file));
      const [part] = await viam.appClient.getRobotParts(robotId);
      await expect(viam.appClient.updateRobotPart(part?.id ?? '', part?.name ?? '', sdk.Struct.fromJson(config as never))).rejects.toThrow(
        REFUSED[file],
      );
      await viam.appClient.deleteRobot(robotId);
    } else {
      machines.set(machineName(file), config);
      fileOf.set(machineName(file), file);
    }
  }
  for (const [name, config] of machines) {
    const robotId = await viam.appClient.newRobot(c.locationId, name);
    const [part] = await viam.appClient.getRobotParts(robotId);
    if (!part) throw new Error(`machine ${name} has no part`);
    await viam.appClient.updateRobotPart(part.id, part.name, sdk.Struct.fromJson(config as never));
    collectSecrets(name, config);
  }
  project = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-real-'));
  await fs.mkdir(path.join(project, 'node_modules'));
  for (const m of ['cdktf', 'constructs', 'tsx', '@types'])
    await fs.symlink(path.join(ROOT, 'node_modules', m), path.join(project, 'node_modules', m));
  await fs.symlink(ROOT, path.join(project, 'node_modules', 'fleetform'));
  await fs.writeFile(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'real-fleet', private: true, dependencies: { cdktf: '*', fleetform: '*' } }),
  );
});

afterAll(async () => {
  await emulator?.close();
  for (const d of [dataDir, project]) if (d) await fs.rm(d, { recursive: true, force: true });
});

/** A synthesized machine resource: its config, its text secrets and its secrets by reference. */
interface MachineResource {
  readonly name: string;
  readonly config: string;
  readonly secret_env?: Record<string, string>;
  readonly secrets?: Record<string, { from: string; name?: string; path?: string }>;
}

/** Every cdk.tf.json under a folder. */
async function synthesized(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name === 'cdk.tf.json') out.push(path.join(entry.parentPath, entry.name));
  }
  return out;
}

/** A synthesized machine's config with its secret env entries merged back into its modules and each secret reference filled from the variables given. */
function configOf(resource: MachineResource, variables: Readonly<Record<string, string>>): Record<string, unknown> {
  let config = JSON.parse(unescapeTemplate(resource.config)) as Record<string, unknown>;
  for (const [at, ref] of Object.entries(resource.secrets ?? {})) {
    const keys = pathKeys(at);
    const value = ref.from === 'env' ? variables[ref.name ?? ''] : undefined;
    if (keys === undefined || value === undefined) throw new Error(`secret reference ${at} cannot be filled: ${JSON.stringify(ref)}`);
    config = withValueAt(config, keys, value) ?? config;
  }
  for (const [key, value] of Object.entries(resource.secret_env ?? {})) {
    const dot = key.indexOf('.');
    const mod = (config.modules as Array<{ name: string; env?: Record<string, string> }>).find((m) => m.name === key.slice(0, dot));
    if (mod) mod.env = { ...mod.env, [key.slice(dot + 1)]: value };
  }
  return config;
}

test('every config is stored, adopted with nothing left out, planned with no changes, and synthesized back to itself', async () => {
  expect(machines.size).toBeGreaterThanOrEqual(30);
  const adopted = await fleetform(project, ['adopt'], env);
  expect(adopted.stderr).toBe('');
  expect(adopted.code).toBe(0);
  expect(adopted.stdout).not.toMatch(/^\s+machine .* \(.*\): /m);
  expect(adopted.stdout).not.toContain('left on the service');
  const code = await fs.readFile(path.join(project, 'stacks', 'adopted.ts'), 'utf8');
  // No secret of the corpus is written to code (a `${environment...}`-style placeholder is no secret: the corpus also uses it as a key id).
  const liveSecrets = Object.values(secrets).filter((value) => !value.startsWith('${'));
  for (const value of liveSecrets) expect(code).not.toContain(`'${value}'`);
  const withSecrets = { ...env, ...secrets };
  const finish = await fleetform(project, ['adopt', '--finish'], withSecrets);
  expect(finish.stderr).toBe('');
  const plan = await fleetform(project, ['plan'], withSecrets);
  expect(plan.stderr).toBe('');
  expect(plan.stdout).toContain('No changes.');
  // Secrets never reach the plan's text.
  for (const value of liveSecrets) expect(plan.stdout).not.toContain(value);

  const docs = await synthesized(project);
  const byName = new Map<string, Record<string, unknown>>();
  for (const file of docs) {
    const doc = JSON.parse(await fs.readFile(file, 'utf8')) as { resource?: { fleetform_machine?: Record<string, MachineResource> } };
    for (const r of Object.values(doc.resource?.fleetform_machine ?? {})) byName.set(r.name, configOf(r, withSecrets));
  }
  // Exactly the config stored: sections present or absent as written, empty lists kept, older forms as written.
  const differences: string[] = [];
  for (const [name, config] of machines) {
    const { revision: _revision, ...stored } = config;
    const line = differenceLine(fileOf.get(name) ?? name, byName.get(name), stored);
    if (line !== undefined) differences.push(line);
  }
  expect(differences).toEqual([]);
});
