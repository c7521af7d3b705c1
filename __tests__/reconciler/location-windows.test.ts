/**
 * Windows per location, end to end on the emulator with the command line: a project of two
 * locations whose policy gives `south` a deny window open now (built from the test's clock).
 * Machines of `north` are written while those of `south` wait: created machines are held
 * from a plain apply, a rollout pauses before south's wave; opened by the override, they go.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createServiceClient, type ServiceClient } from '../../src/api/client';
import { startEmulator } from '../../src/emulator';
import type { ReconcilerEvent, ReconcilerStatus } from '../../src/reconciler/events';
import { fleetform, quickMachines } from '../e2e/fleet-fixture';
import { denyingNow, startReconcile, webhookReceiver, type ReconcileProcess } from './fixture';

jest.setTimeout(240_000);

const ROOT = path.resolve(__dirname, '../..');

/** Two locations of two machines each, a rollout by location (north, then south), south's windows as fleet.json says. */
const MAIN = `
const { App, TerraformStack } = require(${JSON.stringify(path.join(ROOT, 'node_modules', 'cdktf'))});
const ff = require(${JSON.stringify(path.join(ROOT, 'dist', 'index.js'))});
const spec = require('./fleet.json');
const app = new App();
const stack = new TerraformStack(app, 'fleet');
new ff.FleetProvider(stack, 'cloud', {});
const locations = { north: new ff.Location(stack, 'north', { name: 'north' }), south: new ff.Location(stack, 'south', { name: 'south' }) };
for (const [where, location] of Object.entries(locations))
  for (let i = 1; i <= 2; i++) {
    const m = new ff.Machine(stack, where + '-' + i, { name: where + '-' + i, location });
    new ff.Module(m, 'sensors', { moduleId: 'acme:sensors', version: spec.version });
  }
new ff.Rollout(stack, 'by-location', { waves: [{ location: locations.north }, { location: locations.south }], gate: { timeout: '60s', settle: '100ms' }, abort: { maxFailed: 0 } });
new ff.ReconcilePolicy(stack, 'reconcile', { locations: [{ location: locations.south, windows: spec.southWindows }] });
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
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-location-windows-'));
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

/** Each machine of the named locations with its module version, e.g. `north/north-1 ~1.2`. */
async function fleet(): Promise<string[]> {
  const out: string[] = [];
  for (const location of await client.appClient.listLocations(emulator.credentials.organizationId)) {
    if (location.name !== 'north' && location.name !== 'south') continue;
    for (const m of await client.appClient.listMachines(location.id)) {
      const config = (await client.appClient.getMachineParts(m.id))[0]?.config as { modules?: Array<{ version?: string }> };
      out.push(`${location.name}/${m.name} ${config.modules?.[0]?.version ?? '?'}`);
    }
  }
  return out.sort();
}

async function status(): Promise<ReconcilerStatus> {
  const r = await fleetform(dir, ['reconcile', 'status', '--json', '--server', running?.url ?? ''], env);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as ReconcilerStatus;
}

async function override(...args: string[]): Promise<void> {
  const r = await fleetform(dir, ['reconcile', 'override', ...args, '--server', running?.url ?? ''], env);
  expect(r.code).toBe(0);
}

const waves = (since: number): number[] =>
  hook.events
    .slice(since)
    .filter((e): e is Extract<ReconcilerEvent, { type: 'wave-passed' }> => e.type === 'wave-passed')
    .map((e) => e.wave);

test("a location's closed window holds its machines, in a plain apply and at its rollout wave, while the other location's go", async () => {
  const deny = denyingNow();
  await write({ version: '~1.2', southWindows: [deny] });
  running = await startReconcile(dir, ['--path', folder, '--interval', '1m', '--poll', '100ms', '--webhook', hook.url], env);

  // New machines are a plain apply: north's are created, south's wait, and the hold is said.
  const waiting = await hook.waitFor((e) => e.type === 'apply-waiting' && e.location === 'south');
  expect(waiting).toMatchObject({ stack: 'fleet', location: 'south' });
  expect(waiting.type === 'apply-waiting' && waiting.machines?.map((a) => a.replace(/^fleetform_machine\./, '')).sort()).toEqual([
    expect.stringContaining('south-1'),
    expect.stringContaining('south-2'),
  ]);
  expect(waiting.type === 'apply-waiting' && waiting.reason).toContain(`inside the deny window ${deny}`);
  await hook.waitFor((e) => e.type === 'apply-finished');
  expect(await fleet()).toEqual(['north/north-1 ~1.2', 'north/north-2 ~1.2']);
  const held = (await status()).stacks.find((s) => s.stack === 'fleet');
  expect(held?.held).toEqual([expect.objectContaining({ location: 'south', reason: expect.stringContaining(deny) })]);
  expect(held?.held?.[0]?.machines).toHaveLength(2);
  // The plan of the cycle says what the windows hold of it.
  expect(held?.windowHeld).toBe(2);
  const text = await fleetform(dir, ['reconcile', 'status', '--server', running.url], env);
  expect(text.stdout).toContain('2 machine(s) of location south held: inside the deny window');
  expect(text.stdout).toContain('windows hold 2 of its change(s) now');
  // The metrics follow the status at the end of the cycle.
  const heldSeries = 'fleetform_reconcile_held_machines{stack="fleet",location="south"} 2';
  const metricsBy = Date.now() + 30_000;
  let metrics = await (await fetch(`${running.url}/metrics`)).text();
  while (!metrics.includes(heldSeries) && Date.now() < metricsBy) metrics = await (await fetch(`${running.url}/metrics`)).text();
  expect(metrics).toContain(heldSeries);

  // The override opens every window: south's machines are created.
  let mark = hook.events.length;
  await override('--open');
  await hook.waitFor((e) => e.type === 'apply-finished', mark);
  expect(await fleet()).toEqual(['north/north-1 ~1.2', 'north/north-2 ~1.2', 'south/south-1 ~1.2', 'south/south-2 ~1.2']);
  await override('--clear');

  // A new version rolls out by location: north's wave passes, the rollout pauses before south's.
  mark = hook.events.length;
  await write({ version: '~1.3', southWindows: [deny] });
  const paused = await hook.waitFor((e) => e.type === 'rollout-paused', mark);
  expect(paused).toMatchObject({ stack: 'fleet', rollout: 'by-location', wave: 2 });
  expect(paused.type === 'rollout-paused' && paused.reason).toMatch(/south-1.* of location south waits: inside the deny window/);
  expect(waves(mark)).toEqual([1]);
  expect(await fleet()).toEqual(['north/north-1 ~1.3', 'north/north-2 ~1.3', 'south/south-1 ~1.2', 'south/south-2 ~1.2']);

  // A cycle now finds the paused rollout's next wave closed and starts no apply: the stack waits for the window.
  const applies = hook.events.filter((e) => e.type === 'apply-started').length;
  const r = await fleetform(dir, ['reconcile', 'heal', '--server', running.url], env);
  expect(r.code).toBe(0);
  const deadline = Date.now() + 60_000;
  let stack = (await status()).stacks.find((s) => s.stack === 'fleet');
  while (stack?.waiting?.for !== 'window' && Date.now() < deadline) stack = (await status()).stacks.find((s) => s.stack === 'fleet');
  expect(stack?.waiting).toMatchObject({ for: 'window', reason: expect.stringMatching(/next wave waits: .*location south/) });
  expect(hook.events.filter((e) => e.type === 'apply-started')).toHaveLength(applies);

  // Opened, the rollout resumes at south's wave.
  mark = hook.events.length;
  await override('--open');
  await hook.waitFor((e) => e.type === 'wave-passed' && e.wave === 2, mark);
  await hook.waitFor((e) => e.type === 'apply-finished', mark);
  expect(waves(mark)).toEqual([2]);
  expect(await fleet()).toEqual(['north/north-1 ~1.3', 'north/north-2 ~1.3', 'south/south-1 ~1.3', 'south/south-2 ~1.3']);
});
