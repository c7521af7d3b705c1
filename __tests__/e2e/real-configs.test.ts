/**
 * Configs people wrote for real machines (the fixture corpus, and hand-written ones in the
 * same forms, fragments too), each stored on the emulator through the official SDK, adopted
 * by `fleetform adopt`, planned with no changes, and synthesized back to exactly the same
 * config (JSON-equal, key order and `revision` aside: no list added or left out, older forms
 * as written, environment placeholders as written); a failure names the file and the first
 * path that differs. An edit is then written back exactly as code declares it.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSdk, type Sdk } from '../../src/api/sdk';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { configSecrets, isSecretEnvEntry, unescapeTemplate } from '../../src/domain';
import { secretVariableName } from '../../src/engine/adopt/machine-code';
import { pathKeys, withValueAt } from '../../src/domain/secret-reference';
import { fleetform, newAdoptionProject } from './fleet-fixture';
import { realConfigs } from '../fixtures/real-configs';
import { HAND_WRITTEN, HAND_WRITTEN_FRAGMENTS, withFragmentIds } from './real-config-forms';
import { differenceLine } from './first-difference';

jest.setTimeout(600_000);

type ViamClient = Awaited<ReturnType<Sdk['createViamClient']>>;

let emulator: RunningEmulator;
let dataDir: string;
let project: string;
let env: Record<string, string>;
let sdk: Sdk;
let viam: ViamClient;

/**
 * Corpus configs the emulator refuses to store (most because the machine server cannot load
 * them at all, and fleetform's checks refuse them too): each with what its refusal names.
 */
const REFUSED: Readonly<Record<string, string>> = {
  // An API key handler in the older form (`key`, no `keys` list): current viam-server rejects the whole config.
  'viamrobotics__rdk__robots-configs-fake_process_local_auth.json': 'auth.handlers[0].config',
};

/** Every machine config to store, by the machine name it gets. */
const machines = new Map<string, Record<string, unknown>>();
/** The file each machine's config came from, by machine name. */
const fileOf = new Map<string, string>();
/** Each stored machine's id, by machine name. */
const robotIds = new Map<string, string>();
/** Every fragment config stored, by fragment name, and each fragment's id by its name. */
const fragments = new Map<string, Record<string, unknown>>();
const fragmentIds = new Map<string, string>();
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
  for (const { name, config } of HAND_WRITTEN_FRAGMENTS) {
    const stored = withFragmentIds(config, fragmentIds);
    const created = await viam.appClient.createFragment(c.organizationId, name, sdk.Struct.fromJson(stored as never));
    if (!created) throw new Error(`fragment ${name} was not created`);
    fragmentIds.set(name, created.id);
    fragments.set(name, stored);
  }
  // A fragment of the corpus is stored as a fragment too (and as a machine below).
  for (const r of realConfigs().filter((x) => x.kind === 'fragment')) {
    const created = await viam.appClient.createFragment(c.organizationId, machineName(r.file), sdk.Struct.fromJson(r.config as never));
    if (!created) throw new Error(`fragment ${r.file} was not created`);
    fragments.set(machineName(r.file), r.config);
  }
  const corpus = [
    ...realConfigs().map((r) => ({ file: r.file, config: r.config })),
    ...HAND_WRITTEN.map(({ file, config }) => ({ file, config: withFragmentIds(config, fragmentIds) })),
  ];
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
    robotIds.set(name, robotId);
    collectSecrets(name, config);
  }
  project = await newAdoptionProject('ff-real-', 'real-fleet');
});

afterAll(async () => {
  await emulator?.close();
  for (const d of [dataDir, project]) if (d) await fs.rm(d, { recursive: true, force: true });
});

/** `${fleetform_fragment.<id>.id}` as synthesized (not escaped): a reference to a fragment's id. */
const FRAGMENT_ID_REFERENCE = /(?<!\$)\$\{fleetform_fragment\.([A-Za-z0-9_-]+)\.id\}/g;

/** A synthesized config's text with each reference to a fragment's id replaced by the id it resolves to. */
function withReferencedIds(text: string, idOf: ReadonlyMap<string, string>): string {
  return text.replace(FRAGMENT_ID_REFERENCE, (whole, logicalId: string) => idOf.get(logicalId) ?? whole);
}

/** A synthesized machine resource: its config, its text secrets and its secrets by reference. */
interface MachineResource {
  readonly name: string;
  readonly config: string;
  readonly secret_env?: Record<string, string>;
  readonly secrets?: Record<string, { from: string; name?: string; path?: string }>;
}

/** What the test reads of a synthesized stack. */
interface SynthesizedDoc {
  readonly resource?: {
    readonly fleetform_machine?: Record<string, MachineResource>;
    readonly fleetform_fragment?: Record<string, MachineResource>;
  };
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
function configOf(
  resource: MachineResource,
  variables: Readonly<Record<string, string>>,
  idOf: ReadonlyMap<string, string>,
): Record<string, unknown> {
  let config = JSON.parse(unescapeTemplate(withReferencedIds(resource.config, idOf))) as Record<string, unknown>;
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

test('every config is stored, adopted with nothing left out, planned with no changes, synthesized back to itself, and written back exactly', async () => {
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
  // A value wholly an environment placeholder is kept as written, wherever it sits; older forms stay as written.
  for (const written of [
    "payload: '${RDK_AUTH_API_KEY}'",
    "secret: '${environment.OLD_PI_SECRET}'",
    "API_TOKEN: '${environment.API_TOKEN}'",
    "API_TOKEN: '${environment.KIT_TOKEN}'",
    "hotspot_password: '${environment.HOTSPOT_PASSWORD}'",
    "'key-a': '${environment.KEY_A}'",
    'bareId: true',
    'emptyLists: []',
  ])
    expect(code).toContain(written);
  expect(Object.values(secrets).filter((value) => /^\$\{[^}]*\}$/.test(value))).toEqual([]);
  expect(Object.values(secrets)).toContain('${RDK_AUTH_API_KEY}2');
  const withSecrets = { ...env, ...secrets };
  const finish = await fleetform(project, ['adopt', '--finish'], withSecrets);
  expect(finish.stderr).toBe('');
  const plan = await fleetform(project, ['plan'], withSecrets);
  expect(plan.stderr).toBe('');
  expect(plan.stdout).toContain('No changes.');
  // Secrets never reach the plan's text.
  for (const value of liveSecrets) expect(plan.stdout).not.toContain(value);

  const docs: SynthesizedDoc[] = [];
  for (const file of await synthesized(project)) docs.push(JSON.parse(await fs.readFile(file, 'utf8')) as SynthesizedDoc);
  // Each adopted fragment's logical id, by the id its name has on the service.
  const idOf = new Map<string, string>();
  for (const doc of docs)
    for (const [logicalId, r] of Object.entries(doc.resource?.fleetform_fragment ?? {})) {
      const id = fragmentIds.get(r.name);
      if (id !== undefined) idOf.set(logicalId, id);
    }
  const byName = new Map<string, Record<string, unknown>>();
  const fragmentByName = new Map<string, Record<string, unknown>>();
  for (const doc of docs) {
    for (const r of Object.values(doc.resource?.fleetform_machine ?? {})) byName.set(r.name, configOf(r, withSecrets, idOf));
    for (const r of Object.values(doc.resource?.fleetform_fragment ?? {})) fragmentByName.set(r.name, configOf(r, withSecrets, idOf));
  }
  // Exactly the config stored: sections present or absent as written, empty lists kept, older forms as written.
  const differences: string[] = [];
  for (const [name, config] of machines) {
    const { revision: _revision, ...stored } = config;
    const line = differenceLine(fileOf.get(name) ?? name, byName.get(name), stored);
    if (line !== undefined) differences.push(line);
  }
  for (const [name, config] of fragments) {
    const line = differenceLine(`fragment ${name}`, fragmentByName.get(name), config);
    if (line !== undefined) differences.push(line);
  }
  expect(differences).toEqual([]);

  // A write sends exactly what code declares: an edit of a config with no lists stores no list.
  const file = path.join(project, 'stacks', 'adopted.ts');
  const adoptedCode = await fs.readFile(file, 'utf8');
  const declared = /(new Machine\(this, 'hand-empty', \{[^}]*)emptyLists: \[\]/;
  expect(adoptedCode).toMatch(declared);
  await fs.writeFile(file, adoptedCode.replace(declared, '$1debug: true, emptyLists: []'));
  const edited = await fleetform(project, ['plan'], withSecrets);
  expect(edited.stdout).toMatch(/\+ config\.debug\s+= true/);
  expect(edited.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
  const apply = await fleetform(project, ['apply', '--auto-approve'], withSecrets);
  expect(apply.stderr).toBe('');
  expect(apply.code).toBe(0);
  const [part] = await viam.appClient.getRobotParts(robotIds.get('hand-empty') ?? '');
  const { revision: _revision, ...stored } = (part?.robotConfig?.toJson() ?? {}) as Record<string, unknown>;
  expect(stored).toEqual({ debug: true });
  const after = await fleetform(project, ['plan'], withSecrets);
  expect(after.stdout).toContain('No changes.');
});
