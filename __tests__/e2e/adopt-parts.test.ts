/**
 * A machine with two parts besides its main one, made through the official SDK alone, is
 * adopted: each part becomes a `Part` inside its `Machine` with its own config, in code and
 * in state; the plan after adopting has no changes, each synthesized part is the config the
 * service holds, and an edit of a part's code plans as exactly that edit.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSdk } from '../../src/api/sdk';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { unescapeTemplate } from '../../src/domain';
import { secretVariableName } from '../../src/engine/adopt/machine-code';
import { realConfigs } from '../fixtures/real-configs';
import { fleetform } from './fleet-fixture';

jest.setTimeout(300_000);

const ROOT = path.resolve(__dirname, '../..');

let emulator: RunningEmulator | undefined;
const dirs: string[] = [];

afterAll(async () => {
  await emulator?.close();
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
});

function corpusConfig(file: string): Record<string, unknown> {
  const found = realConfigs().find((r) => r.file === file);
  if (!found) throw new Error(`no corpus config ${file}`);
  return found.config;
}

/** The parts the rover runs besides its main one: remotes with credentials, a module with a token, network settings. */
const OTHER_PARTS: Readonly<Record<string, Record<string, unknown>>> = {
  'arm-controller': {
    ...corpusConfig('viamrobotics__rdk__etc-configs-remote_local_auth.json'),
    modules: [
      {
        type: 'local',
        name: 'arm-driver',
        executable_path: '/opt/arm/run.sh',
        env: { ARM_API_TOKEN: 'arm-token-7731', PORT: '/dev/ttyUSB0' },
      },
    ],
    components: [{ name: 'arm', api: 'rdk:component:arm', model: 'fake', attributes: { arm_model: 'ur5e' } }],
  },
  'camera-rig': corpusConfig('viamrobotics__rdk__robots-configs-gripper-cam.json'),
};

/** JSON with object keys sorted: equality with key order aside. */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sorted((value as Record<string, unknown>)[k])]),
  );
}

interface PartResource {
  readonly name: string;
  readonly machine_id: string;
  readonly config: string;
  readonly secrets?: Record<string, { from: string; name?: string }>;
}

test('a machine with two other parts is adopted part by part: No changes after, each part synthesized as stored', async () => {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-adopt-parts-emu-'));
  const project = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-adopt-parts-'));
  dirs.push(dataDir, project);
  emulator = await startEmulator({ dataDir, port: 0 });
  const c = emulator.credentials;
  const env = { FLEETFORM_ENDPOINT: emulator.url, FLEETFORM_API_KEY: c.apiKey, FLEETFORM_API_KEY_ID: c.apiKeyId };
  const sdk = await loadSdk();
  const viam = await sdk.createViamClient({
    serviceHost: emulator.url,
    credentials: { type: 'api-key', authEntity: c.apiKeyId, payload: c.apiKey },
  });

  const robotId = await viam.appClient.newRobot(c.locationId, 'rover');
  const [main] = await viam.appClient.getRobotParts(robotId);
  await viam.appClient.updateRobotPart(
    main?.id ?? '',
    main?.name ?? '',
    sdk.Struct.fromJson({ components: [{ name: 'base', api: 'rdk:component:base', model: 'fake' }] }),
  );
  for (const [name, config] of Object.entries(OTHER_PARTS)) {
    const partId = await viam.appClient.newRobotPart(robotId, name);
    await viam.appClient.updateRobotPart(partId, name, sdk.Struct.fromJson(config as never));
  }

  await fs.mkdir(path.join(project, 'node_modules'));
  for (const m of ['cdktf', 'constructs', 'tsx', '@types'])
    await fs.symlink(path.join(ROOT, 'node_modules', m), path.join(project, 'node_modules', m));
  await fs.symlink(ROOT, path.join(project, 'node_modules', 'fleetform'));
  await fs.writeFile(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'parts-fleet', private: true, dependencies: { cdktf: '*', fleetform: '*' } }),
  );

  const adopted = await fleetform(project, ['adopt'], env);
  expect(adopted.stderr).toBe('');
  expect(adopted.code).toBe(0);
  expect(adopted.stdout).not.toContain('left on the service');
  const code = await fs.readFile(path.join(project, 'stacks', 'adopted.ts'), 'utf8');
  expect(code).toContain("new Part(rover, 'arm-controller', {");
  expect(code).toContain("new Part(rover, 'camera-rig'");
  expect(code).not.toContain('arm-token-7731');

  const token = secretVariableName('rover-arm-controller', 'arm-driver', 'ARM_API_TOKEN');
  // A payload wholly a placeholder (`${RDK_AUTH_API_KEY}`) is no secret: kept in code as written.
  const remoteKeys = {
    [secretVariableName('rover-arm-controller', 'remotes', '0', 'auth', 'credentials', 'payload')]: '${RDK_AUTH_API_KEY}2',
  };
  expect(code).toContain("payload: '${RDK_AUTH_API_KEY}'");
  const withSecrets = { ...env, [token]: 'arm-token-7731', ...remoteKeys };
  const finish = await fleetform(project, ['adopt', '--finish'], withSecrets);
  expect(finish.stderr).toBe('');
  const plan = await fleetform(project, ['plan', '--detailed-exitcode'], withSecrets);
  expect(plan.stderr).toBe('');
  expect(plan.stdout).toContain('No changes.');
  expect(plan.code).toBe(0);

  const doc = JSON.parse(await fs.readFile(path.join(project, 'cdktf.out', 'stacks', 'adopted', 'cdk.tf.json'), 'utf8')) as {
    resource: { fleetform_machine_part: Record<string, PartResource> };
  };
  const parts = Object.values(doc.resource.fleetform_machine_part);
  expect(parts.map((r) => r.name).sort()).toEqual(['arm-controller', 'camera-rig']);
  for (const r of parts) {
    const config = JSON.parse(unescapeTemplate(r.config)) as Record<string, unknown>;
    expect(JSON.stringify(config)).not.toContain('arm-token-7731');
    const stored = OTHER_PARTS[r.name] ?? {};
    // Secrets travel apart (secret_env, secrets by reference): compare the rest.
    const withoutSecrets = JSON.parse(JSON.stringify(stored)) as Record<string, unknown>;
    if (r.name === 'arm-controller') {
      // Read where plans run, from the variables adopt listed.
      expect(
        Object.values(r.secrets ?? {})
          .map((ref) => ref.name)
          .sort(),
      ).toEqual([token, ...Object.keys(remoteKeys)].sort());
      delete (withoutSecrets.modules as Array<{ env: Record<string, string> }>)[0]?.env.ARM_API_TOKEN;
      for (const remote of withoutSecrets.remotes as Array<{ auth: { credentials: Record<string, string> } }>)
        if (remote.auth.credentials.payload !== '${RDK_AUTH_API_KEY}') delete remote.auth.credentials.payload;
    }
    // Exactly as stored: no list added, none left out.
    expect(sorted(config)).toEqual(sorted(withoutSecrets));
  }

  // An edit of one part's code is that edit alone.
  await fs.writeFile(path.join(project, 'stacks', 'adopted.ts'), code.replace("arm_model: 'ur5e'", "arm_model: 'ur10e'"));
  const edit = await fleetform(project, ['plan'], withSecrets);
  expect(edit.stdout).toMatch(/# fleetform_machine_part\.rover_arm-controller will be updated in-place/);
  expect(edit.stdout).toMatch(/~ config\.components\.arm\.attributes\.arm_model\s+= "ur5e" -> "ur10e"/);
  expect(edit.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
});
