/**
 * A secret never shows: not in plan text, JSON or markdown, not as drift when it was added
 * on the service, not in state show, env, stderr, or the state file; the state's digests
 * are keyed by a 0600 file outside the state, so a copied state reveals nothing.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openEmulatorProject, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(120_000);

const DECLARED = 'declared-Secret-7Qx9';
const ADDED_ON_SERVICE = 'drifted-Secret-3Kp2';
let p: EmulatorProject;
let keyDir: string;

beforeEach(async () => {
  keyDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-key-'));
  process.env.FLEETFORM_SECRET_KEY_FILE = path.join(keyDir, 'state-secret.key');
  p = await openEmulatorProject('ff-secrets-');
});

afterEach(async () => {
  await p?.close();
  delete process.env.FLEETFORM_SECRET_KEY_FILE;
  await fs.rm(keyDir, { recursive: true, force: true });
});

function expectNoSecret(where: string, text: string): void {
  for (const secret of [DECLARED, ADDED_ON_SERVICE]) {
    if (text.includes(secret)) throw new Error(`${where} shows a secret in clear:\n${text}`);
  }
}

/** Every file under `dir`, as text. */
async function filesUnder(dir: string): Promise<{ file: string; text: string }[]> {
  const out: { file: string; text: string }[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out.push({ file, text: await fs.readFile(file, 'latin1') });
  }
  return out;
}

test('a declared secret and one added on the service stay masked along every path that shows values', async () => {
  p.synth({ token: DECLARED });
  const apply = await p.run('apply', '--auto-approve');
  expect(apply.code).toBe(0);
  expectNoSecret('apply', apply.stdout + apply.stderr);

  // Someone adds a secret-looking env entry on the service, behind fleetform's back.
  const state = await p.backend().read('fleet');
  const partId = state.resources['fleetform_machine.picker-1']?.ids.part_id as string;
  const part = await p.client.appClient.getMachinePart(partId);
  const config = JSON.parse(JSON.stringify(part.config)) as { modules: Array<{ env?: Record<string, string> }> };
  const module = config.modules[0];
  if (!module) throw new Error('the fleet has no module');
  module.env = { ...module.env, DEPLOY_TOKEN: ADDED_ON_SERVICE };
  await p.client.appClient.updateMachinePart(part.id, part.name, config, part.lastUpdated);

  const text = await p.run('plan');
  expect(text.stdout).toContain('DEPLOY_TOKEN');
  expectNoSecret('plan', text.stdout + text.stderr);
  const json = await p.run('plan', '--json');
  expect(json.stdout).toContain('DEPLOY_TOKEN');
  expectNoSecret('plan --json', json.stdout + json.stderr);
  const markdown = await p.run('plan', '--markdown');
  expectNoSecret('plan --markdown', markdown.stdout + markdown.stderr);
  const show = await p.runBare('state', 'show', 'fleetform_machine.picker-1');
  expect(show.code).toBe(0);
  expectNoSecret('state show', show.stdout + show.stderr);
  const env = await p.run('env', 'fleetform_machine.picker-1', 'acme_sensors');
  expect(env.stdout).toContain('API_TOKEN=(sensitive)');
  expectNoSecret('env', env.stdout + env.stderr);

  for (const { file, text: content } of await filesUnder(path.join(p.dir, '.fleetform', 'state'))) expectNoSecret(file, content);
});

test('state digests are keyed by a 0600 file outside the state: without the key they cannot be recomputed', async () => {
  p.synth({ token: DECLARED });
  expect((await p.run('apply', '--auto-approve')).code).toBe(0);
  const keyFile = process.env.FLEETFORM_SECRET_KEY_FILE as string;
  expect((await fs.stat(keyFile)).mode & 0o777).toBe(0o600);
  const key = (await fs.readFile(keyFile, 'utf8')).trim();

  const state = await p.backend().read('fleet');
  const stateText = JSON.stringify(state);
  expect(stateText).not.toContain(key);
  const digests = stateText.match(/sensitive:[a-z0-9-]+:[0-9a-f]{64}/g) ?? [];
  expect(digests.length).toBeGreaterThan(0);
  expect(digests.every((d) => d.startsWith('sensitive:hmac-sha256:'))).toBe(true);
  // The former scheme (SHA-256 salted with the lineage, which the state holds) no longer matches.
  const unkeyed = createHash('sha256').update(state.lineage).update('\0').update(JSON.stringify(DECLARED)).digest('hex');
  expect(stateText).not.toContain(unkeyed);
});
