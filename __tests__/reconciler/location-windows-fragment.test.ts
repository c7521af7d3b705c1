/**
 * A fragment's rollout under the reconciler, its machines in two locations, one closed by a
 * location window (a deny window open now, built from the test's clock): the new revision
 * reaches north's wave, the rollout pauses before south's wave naming its machine, resumes
 * when the override opens the windows, and no machine is written more than the rollout
 * writes it once (its part history counted on the emulator).
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createServiceClient, type ServiceClient } from '../../src/api/client';
import { loadServices } from '../../src/api/services';
import { startEmulator } from '../../src/emulator';
import type { ReconcilerEvent } from '../../src/reconciler/events';
import { fleetform, quickMachines } from '../e2e/fleet-fixture';
import { denyingNow, startReconcile, webhookReceiver, type ReconcileProcess } from './fixture';

jest.setTimeout(240_000);

const ROOT = path.resolve(__dirname, '../..');

/** A fragment imported at its `stable` tag by two machines in each of two locations; its rollout goes by location, north first. */
const MAIN = `
const { App, TerraformStack } = require(${JSON.stringify(path.join(ROOT, 'node_modules', 'cdktf'))});
const ff = require(${JSON.stringify(path.join(ROOT, 'dist', 'index.js'))});
const spec = require('./fleet.json');
const app = new App();
const stack = new TerraformStack(app, 'fleet');
new ff.FleetProvider(stack, 'cloud', {});
const locations = { north: new ff.Location(stack, 'north', { name: 'north' }), south: new ff.Location(stack, 'south', { name: 'south' }) };
const rig = new ff.Fragment(stack, 'rig', { name: 'sensor-rig' });
const sensors = new ff.Module(rig, 'sensors', { moduleId: 'acme:sensors', version: spec.version });
new ff.ModularResource(rig, 'board', { name: 'board-1', api: 'rdk:component:board', model: sensors.model('pi-board') });
new ff.FragmentTag(stack, 'rig-stable', { fragment: rig, tag: 'stable' });
for (const [where, location] of Object.entries(locations))
  for (let i = 1; i <= 2; i++) new ff.Machine(stack, where + '-' + i, { name: where + '-' + i, location }).useFragment(rig, { version: 'stable' });
new ff.Rollout(stack, 'rig-by-location', { fragment: rig, waves: [{ location: locations.north }, { location: locations.south }], gate: { timeout: '60s', settle: '100ms' }, abort: { maxFailed: 0 } });
if (spec.southWindows.length > 0) new ff.ReconcilePolicy(stack, 'reconcile', { locations: [{ location: locations.south, windows: spec.southWindows }] });
app.synth();
`;

interface Spec {
  readonly version: string;
  readonly southWindows: readonly string[];
}

let dir: string;
let folder: string;
let restoreEnv: () => void;
let emulator: Awaited<ReturnType<typeof startEmulator>>;
let client: ServiceClient;
let env: Record<string, string>;
let hook: Awaited<ReturnType<typeof webhookReceiver>>;
let running: ReconcileProcess | undefined;

beforeAll(async () => {
  restoreEnv = quickMachines();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-location-windows-fragment-'));
  folder = path.join(dir, 'project');
  await fs.mkdir(folder, { recursive: true });
  await fs.writeFile(path.join(folder, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'node main.js' }));
  await fs.writeFile(path.join(folder, 'main.js'), MAIN);
  emulator = await startEmulator({ dataDir: path.join(dir, 'emulator'), port: 0 });
  const { apiKey, apiKeyId } = emulator.credentials;
  env = { FLEETFORM_ENDPOINT: emulator.url, FLEETFORM_API_KEY: apiKey, FLEETFORM_API_KEY_ID: apiKeyId };
  client = await createServiceClient({
    serviceHost: emulator.url,
    credentials: { type: 'api-key', authEntity: apiKeyId, payload: apiKey },
  });
  hook = await webhookReceiver();
});

afterAll(async () => {
  await running?.stop();
  await hook?.close();
  client?.close();
  await emulator?.close();
  restoreEnv?.();
  await fs.rm(dir, { recursive: true, force: true });
});

const write = (spec: Spec): Promise<void> => fs.writeFile(path.join(folder, 'fleet.json'), JSON.stringify(spec));

interface Machine {
  readonly name: string;
  readonly location: string;
  /** The version its part imports the fragment at. */
  readonly imports: string;
  /** How many times its part was written: the entries of its history. */
  readonly writes: number;
}

/** Each machine of north and south: where it is, what it imports the fragment at, and how often its part was written. */
async function machines(): Promise<Map<string, Machine>> {
  const app = client.clientFor((await loadServices()).app);
  const out = new Map<string, Machine>();
  for (const location of await client.appClient.listLocations(emulator.credentials.organizationId)) {
    if (location.name !== 'north' && location.name !== 'south') continue;
    for (const m of await client.appClient.listMachines(location.id)) {
      const parts = await client.appClient.getMachineParts(m.id);
      let writes = 0;
      for (const part of parts) {
        let pageToken: string | undefined;
        for (;;) {
          const page = await app.getRobotPartHistory({ id: part.id, ...(pageToken ? { pageToken } : {}) });
          writes += page.history.length;
          if (!page.nextPageToken) break;
          pageToken = page.nextPageToken;
        }
      }
      const imports = (parts[0]?.config.fragments as Array<{ version?: string }> | undefined)?.[0]?.version ?? '(latest)';
      out.set(m.name, { name: m.name, location: location.name, imports, writes });
    }
  }
  return out;
}

async function override(...args: string[]): Promise<void> {
  const r = await fleetform(dir, ['reconcile', 'override', ...args, '--server', running?.url ?? ''], env);
  expect(r.code).toBe(0);
}

const waves = (since: number): number[] =>
  hook.events
    .slice(since)
    .filter((e): e is Extract<ReconcilerEvent, { type: 'wave-passed' }> => e.type === 'wave-passed' && e.rollout === 'rig-by-location')
    .map((e) => e.wave);

async function fragmentRevisions(): Promise<{ revision: string; stable: string | undefined }> {
  const [found] = (await client.appClient.listFragments(emulator.credentials.organizationId)).filter((f) => f.name === 'sensor-rig');
  const detail = await client.appClient.getFragment(found?.id ?? '');
  return { revision: detail.fragment.revision, stable: detail.tags.find((t) => t.tag === 'stable')?.revision };
}

test("a fragment's rollout pauses before the wave holding a closed location's machine, resumes when it opens, no machine written twice", async () => {
  await write({ version: '1.2.3', southWindows: [] });
  running = await startReconcile(dir, ['--path', folder, '--interval', '1m', '--poll', '100ms', '--webhook', hook.url], env);
  const first = await hook.waitFor((e) => e.type === 'apply-finished' || e.type === 'cycle-failed');
  expect(first.type === 'cycle-failed' ? first.error : first.type).toBe('apply-finished');
  const created = await machines();
  expect([...created.values()].map((m) => `${m.location}/${m.name}@${m.imports}`).sort()).toEqual([
    'north/north-1@stable',
    'north/north-2@stable',
    'south/south-1@stable',
    'south/south-2@stable',
  ]);
  const was = await fragmentRevisions();

  // A new revision, south closed: north's wave passes, the rollout pauses before south's, naming its machine.
  const deny = denyingNow();
  let mark = hook.events.length;
  await write({ version: '1.2.5', southWindows: [deny] });
  const paused = await hook.waitFor((e) => e.type === 'rollout-paused', mark);
  expect(paused).toMatchObject({ stack: 'fleet', rollout: 'rig-by-location', wave: 2 });
  expect(paused.type === 'rollout-paused' && paused.reason).toMatch(
    new RegExp(`south-1.* of location south waits: inside the deny window ${deny.replace(/[*]/g, '\\*')}`),
  );
  expect(waves(mark)).toEqual([1]);
  const saved = await fragmentRevisions();
  expect(saved.revision).not.toBe(was.revision);
  expect(saved.stable).toBe(was.stable);
  const halfway = await machines();
  // North's machines are pinned to the new revision; south's still follow the tag, never written by the rollout.
  expect(halfway.get('north-1')?.imports).toBe(saved.revision);
  expect(halfway.get('north-2')?.imports).toBe(saved.revision);
  for (const name of ['south-1', 'south-2']) {
    expect(halfway.get(name)?.imports).toBe('stable');
    expect(halfway.get(name)?.writes).toBe(created.get(name)?.writes);
  }
  for (const name of ['north-1', 'north-2']) expect(halfway.get(name)?.writes).toBe((created.get(name)?.writes ?? 0) + 1);

  // Opened by the override: the rollout resumes at south's wave, then moves the tag and lifts the pins.
  mark = hook.events.length;
  await override('--open');
  await hook.waitFor((e) => e.type === 'wave-passed' && e.rollout === 'rig-by-location' && e.wave === 2, mark);
  await hook.waitFor((e) => e.type === 'apply-finished', mark);
  expect(waves(mark)).toEqual([2]);
  expect(hook.events.slice(mark).some((e) => e.type === 'rollout-stopped')).toBe(false);
  const done = await fragmentRevisions();
  expect(done).toEqual({ revision: saved.revision, stable: saved.revision });
  const after = await machines();
  for (const [name, m] of after) {
    expect(`${name}@${m.imports}`).toBe(`${name}@stable`);
    // One pin in its wave and one when the pins are lifted: north's machines were not pinned again on the resume.
    expect(`${name}: ${m.writes - (created.get(name)?.writes ?? 0)}`).toBe(`${name}: 2`);
  }
});
