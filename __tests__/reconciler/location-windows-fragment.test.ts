/**
 * A fragment's rollout under the reconciler, its machines in two locations, one closed by a
 * location window (a deny window open now, built from the test's clock): the new revision
 * reaches north's wave, the rollout pauses before south's wave naming its machine, resumes
 * when the override opens the windows, and no machine is written more than the rollout
 * writes it once (its part history counted on the emulator).
 */
import * as path from 'node:path';
import {
  APP_REQUIRES,
  denyingNow,
  partWrites,
  projectFolder,
  QUICK_MACHINES,
  reconcileCommand,
  reconcilerRuns,
  suiteEmulator,
  wavesPassed,
} from './fixture';

jest.setTimeout(240_000);

/** A fragment imported at its `stable` tag by two machines in each of two locations; its rollout goes by location, north first. */
const MAIN = `
${APP_REQUIRES}
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

const suite = suiteEmulator('ff-location-windows-fragment-', { simulation: QUICK_MACHINES });
let project: ReturnType<typeof projectFolder<Spec>>;
const runs = reconcilerRuns(suite);

beforeAll(() => {
  project = projectFolder<Spec>(path.join(suite.dir, 'project'), MAIN);
});

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
  const { client } = suite;
  const out = new Map<string, Machine>();
  for (const location of await client.appClient.listLocations(suite.credentials.organizationId)) {
    if (location.name !== 'north' && location.name !== 'south') continue;
    for (const m of await client.appClient.listMachines(location.id)) {
      const parts = await client.appClient.getMachineParts(m.id);
      const imports = (parts[0]?.config.fragments as Array<{ version?: string }> | undefined)?.[0]?.version ?? '(latest)';
      out.set(m.name, { name: m.name, location: location.name, imports, writes: await partWrites(client, m.id) });
    }
  }
  return out;
}

async function override(...args: string[]): Promise<void> {
  expect((await reconcileCommand(suite.dir, suite.env, runs.running.url, 'override', ...args)).code).toBe(0);
}

async function fragmentRevisions(): Promise<{ revision: string; stable: string | undefined }> {
  const { client } = suite;
  const [found] = (await client.appClient.listFragments(suite.credentials.organizationId)).filter((f) => f.name === 'sensor-rig');
  const detail = await client.appClient.getFragment(found?.id ?? '');
  return { revision: detail.fragment.revision, stable: detail.tags.find((t) => t.tag === 'stable')?.revision };
}

test("a fragment's rollout pauses before the wave holding a closed location's machine, resumes when it opens, no machine written twice", async () => {
  project.write({ version: '1.2.3', southWindows: [] });
  await runs.start(suite.dir, ['--path', project.folder, '--interval', '1m', '--poll', '100ms'], suite.env);
  const { hook } = runs;
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
  project.write({ version: '1.2.5', southWindows: [deny] });
  const paused = await hook.waitFor((e) => e.type === 'rollout-paused', mark);
  expect(paused).toMatchObject({ stack: 'fleet', rollout: 'rig-by-location', wave: 2 });
  expect(paused.type === 'rollout-paused' && paused.reason).toMatch(
    new RegExp(`south-1.* of location south waits: inside the deny window ${deny.replace(/[*]/g, '\\*')}`),
  );
  expect(wavesPassed(hook, mark, 'rig-by-location')).toEqual([1]);
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
  expect(wavesPassed(hook, mark, 'rig-by-location')).toEqual([2]);
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
