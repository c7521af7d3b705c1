/**
 * A machine whose triggers the official SDK wrote (a webhook carrying a token, an e-mail, a
 * conditional data trigger) is adopted: each trigger becomes a `Trigger`, the token read
 * from an environment variable; the plan after adopting says "No changes"; a trigger added
 * in code is planned with the token masked, applied through `fleetform apply`, and stored by
 * the service with its URL whole.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadSdk } from '../../src/api/sdk';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { secretVariableName } from '../../src/engine/adopt/machine-code';
import { fleetform } from './fleet-fixture';

jest.setTimeout(300_000);

const ROOT = path.resolve(__dirname, '../..');
const TOKEN = 'hook-token-5521-SECRET';
const NEW_TOKEN = 'second-token-8830-SECRET';

let emulator: RunningEmulator | undefined;
const dirs: string[] = [];

afterAll(async () => {
  await emulator?.close();
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
});

const TRIGGERS = [
  {
    name: 'offline-alert',
    event: { type: 'part_offline' },
    notifications: [{ type: 'webhook', value: `https://hooks.example.com/fleet?token=${TOKEN}`, seconds_between_notifications: 300 }],
  },
  {
    name: 'hot-cpu',
    event: {
      type: 'conditional_data_ingested',
      conditional: {
        data_capture_method: 'sensor:cpu:Readings',
        condition: { evals: [{ operator: 'gt', value: { readings: { cpu: 80 } } }] },
      },
    },
    notifications: [{ type: 'email', value: 'all_machine_owners', seconds_between_notifications: 60 }],
    disabled: true,
  },
];

test('triggers round-trip: adopted as Trigger constructs, No changes, then one added in code is applied with its token masked', async () => {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-triggers-emu-'));
  const project = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-triggers-'));
  dirs.push(dataDir, project);
  emulator = await startEmulator({ dataDir, port: 0, simulation: { simulate: false } });
  const c = emulator.credentials;
  const env = { FLEETFORM_ENDPOINT: emulator.url, FLEETFORM_API_KEY: c.apiKey, FLEETFORM_API_KEY_ID: c.apiKeyId };
  const sdk = await loadSdk();
  const viam = await sdk.createViamClient({
    serviceHost: emulator.url,
    credentials: { type: 'api-key', authEntity: c.apiKeyId, payload: c.apiKey },
  });
  const robotId = await viam.appClient.newRobot(c.locationId, 'sentry');
  const [main] = await viam.appClient.getRobotParts(robotId);
  const stored = { components: [{ name: 'cpu', api: 'rdk:component:sensor', model: 'fake' }], triggers: TRIGGERS };
  await viam.appClient.updateRobotPart(main?.id ?? '', main?.name ?? '', sdk.Struct.fromJson(stored as never));

  await fs.mkdir(path.join(project, 'node_modules'));
  for (const m of ['cdktf', 'constructs', 'tsx', '@types'])
    await fs.symlink(path.join(ROOT, 'node_modules', m), path.join(project, 'node_modules', m));
  await fs.symlink(ROOT, path.join(project, 'node_modules', 'fleetform'));
  await fs.writeFile(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'triggers-fleet', private: true, dependencies: { cdktf: '*', fleetform: '*' } }),
  );

  const adopted = await fleetform(project, ['adopt'], env);
  expect(adopted.stderr).toBe('');
  expect(adopted.code).toBe(0);
  const file = path.join(project, 'stacks', 'adopted.ts');
  const code = await fs.readFile(file, 'utf8');
  expect(code).toMatch(/new Trigger\(\w+, 'offline-alert', \{/);
  expect(code).toMatch(/new Trigger\(\w+, 'hot-cpu', \{/);
  expect(code).not.toContain('addConfigOverride');
  expect(code).not.toContain(TOKEN);
  const variable = secretVariableName('sentry', 'triggers', '0', 'notifications', '0', 'value');
  expect(code).toContain(`url: Secret.fromEnv('${variable}')`);

  const withSecret = { ...env, [variable]: `https://hooks.example.com/fleet?token=${TOKEN}` };
  const finish = await fleetform(project, ['adopt', '--finish'], withSecret);
  expect(finish.stderr).toBe('');
  const plan = await fleetform(project, ['plan', '--detailed-exitcode'], withSecret);
  expect(plan.stderr).toBe('');
  expect(plan.stdout).toContain('No changes.');
  expect(plan.code).toBe(0);

  // A trigger added in code: its token given by reference, masked in the plan, stored whole.
  const machineVar = /new Trigger\((\w+), 'offline-alert'/.exec(code)?.[1] ?? '';
  const added = `${code.trimEnd()}\n`.replace(
    /new Trigger\(\w+, 'offline-alert'/,
    `new Trigger(${machineVar}, 'back-online', { event: TriggerEvent.partOnline(), notifications: [{ type: 'webhook', url: Secret.fromEnv('BACK_HOOK'), secondsBetweenNotifications: 60 }, { type: 'email', address: 'ops@example.com' }] });\n    new Trigger(${machineVar}, 'offline-alert'`,
  );
  await fs.writeFile(file, added.replace(/import \{([^}]*)\bTrigger\b/, 'import {$1Trigger, TriggerEvent'));
  const withBoth = { ...withSecret, BACK_HOOK: `https://robot:${NEW_TOKEN}@hooks.example.com/back` };
  const changed = await fleetform(project, ['plan'], withBoth);
  expect(changed.stderr).toBe('');
  expect(changed.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
  // Keyed by name: the new trigger alone, the others untouched and nothing read as changed outside.
  expect(changed.stdout).toMatch(/\+ config\.triggers\.back-online = \{/);
  expect(changed.stdout).not.toContain('changed outside');
  expect(changed.stdout).toMatch(/"type": "webhook",\s+"seconds_between_notifications": 60,\s+"value": "\(sensitive\)"/);
  expect(changed.stdout).toContain('ops@example.com');
  expect(changed.stdout).not.toContain(NEW_TOKEN);
  expect(changed.stdout).not.toContain(TOKEN);

  const applied = await fleetform(project, ['apply', '--auto-approve'], withBoth);
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
  expect(applied.stdout).not.toContain(NEW_TOKEN);
  const part = await viam.appClient.getRobotPart(main?.id ?? '');
  const config = JSON.parse(part.configJson) as { triggers: Array<{ name: string; notifications: Array<{ value: string }> }> };
  expect(config.triggers.map((t) => t.name).sort()).toEqual(['back-online', 'hot-cpu', 'offline-alert']);
  expect(config.triggers.find((t) => t.name === 'back-online')?.notifications[0]?.value).toBe(
    `https://robot:${NEW_TOKEN}@hooks.example.com/back`,
  );
  for (const f of await fs.readdir(path.join(project, '.fleetform'), { recursive: true })) {
    const full = path.join(project, '.fleetform', f);
    if ((await fs.stat(full)).isFile() && !full.includes('emulator')) expect(await fs.readFile(full, 'utf8')).not.toContain(NEW_TOKEN);
  }
  const again = await fleetform(project, ['plan', '--detailed-exitcode'], withBoth);
  expect(again.stdout).toContain('No changes.');
});
