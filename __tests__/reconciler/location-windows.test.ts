/**
 * Windows per location, end to end on the emulator with the command line: a project of two
 * locations whose policy gives `south` a deny window open now (built from the test's clock).
 * Machines of `north` are written while those of `south` wait: created machines are held
 * from a plain apply, a rollout pauses before south's wave; opened by the override, they go.
 */
import * as path from 'node:path';
import type { ReconcilerStatus } from '../../src/reconciler/events';
import {
  apiStack,
  APP_REQUIRES,
  denyingNow,
  metricsText,
  moduleVersions,
  projectFolder,
  QUICK_MACHINES,
  readUntil,
  reconcileCommand,
  reconcilerRuns,
  suiteEmulator,
  wavesPassed,
} from './fixture';

jest.setTimeout(240_000);

/** Two locations of two machines each, a rollout by location (north, then south), south's windows as fleet.json says. */
const MAIN = `
${APP_REQUIRES}
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

const suite = suiteEmulator('ff-location-windows-', { simulation: QUICK_MACHINES });
let project: ReturnType<typeof projectFolder<Spec>>;
const runs = reconcilerRuns(suite);

beforeAll(() => {
  project = projectFolder<Spec>(path.join(suite.dir, 'project'), MAIN);
});

/** Each machine of north and south with its module version, e.g. `north/north-1 ~1.2`. */
async function fleet(): Promise<string[]> {
  const out: string[] = [];
  for (const location of await suite.client.appClient.listLocations(suite.credentials.organizationId))
    if (location.name === 'north' || location.name === 'south')
      out.push(...(await moduleVersions(suite.client, location.id, `${location.name}/`)));
  return out.sort();
}

const command = (...args: string[]) => reconcileCommand(suite.dir, suite.env, runs.running.url, ...args);

async function status(): Promise<ReconcilerStatus> {
  const r = await command('status', '--json');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as ReconcilerStatus;
}

async function override(...args: string[]): Promise<void> {
  expect((await command('override', ...args)).code).toBe(0);
}

test("a location's closed window holds its machines, in a plain apply and at its rollout wave, while the other location's go", async () => {
  const deny = denyingNow();
  project.write({ version: '~1.2', southWindows: [deny] });
  const running = await runs.start(suite.dir, ['--path', project.folder, '--interval', '1m', '--poll', '100ms'], suite.env);
  const { hook } = runs;

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
  const text = await command('status');
  expect(text.stdout).toContain('2 machine(s) of location south held: inside the deny window');
  expect(text.stdout).toContain('windows hold 2 of its change(s) now');
  // The metrics follow the status at the end of the cycle.
  const heldSeries = 'fleetform_reconcile_held_machines{stack="fleet",location="south"} 2';
  const url = running.url;
  expect(
    await readUntil(
      () => metricsText(url),
      (m) => m.includes(heldSeries),
    ),
  ).toContain(heldSeries);

  // The override opens every window: south's machines are created.
  let mark = hook.events.length;
  await override('--open');
  await hook.waitFor((e) => e.type === 'apply-finished', mark);
  expect(await fleet()).toEqual(['north/north-1 ~1.2', 'north/north-2 ~1.2', 'south/south-1 ~1.2', 'south/south-2 ~1.2']);
  await override('--clear');

  // A new version rolls out by location: north's wave passes, the rollout pauses before south's.
  mark = hook.events.length;
  project.write({ version: '~1.3', southWindows: [deny] });
  const paused = await hook.waitFor((e) => e.type === 'rollout-paused', mark);
  expect(paused).toMatchObject({ stack: 'fleet', rollout: 'by-location', wave: 2 });
  expect(paused.type === 'rollout-paused' && paused.reason).toMatch(/south-1.* of location south waits: inside the deny window/);
  expect(wavesPassed(hook, mark)).toEqual([1]);
  expect(await fleet()).toEqual(['north/north-1 ~1.3', 'north/north-2 ~1.3', 'south/south-1 ~1.2', 'south/south-2 ~1.2']);

  // A cycle now finds the paused rollout's next wave closed and starts no apply: the stack waits for the window.
  const applies = hook.events.filter((e) => e.type === 'apply-started').length;
  expect((await command('heal')).code).toBe(0);
  await readUntil(
    () => apiStack(url),
    (stack) => stack?.waiting?.for === 'window',
    60_000,
  );
  const stack = (await status()).stacks.find((s) => s.stack === 'fleet');
  expect(stack?.waiting).toMatchObject({ for: 'window', reason: expect.stringMatching(/next wave waits: .*location south/) });
  expect(hook.events.filter((e) => e.type === 'apply-started')).toHaveLength(applies);

  // Opened, the rollout resumes at south's wave.
  mark = hook.events.length;
  await override('--open');
  await hook.waitFor((e) => e.type === 'wave-passed' && e.wave === 2, mark);
  await hook.waitFor((e) => e.type === 'apply-finished', mark);
  expect(wavesPassed(hook, mark)).toEqual([2]);
  expect(await fleet()).toEqual(['north/north-1 ~1.3', 'north/north-2 ~1.3', 'south/south-1 ~1.3', 'south/south-2 ~1.3']);
});
