/**
 * A machine that starts importing a fragment while the fragment's rollout is paused between
 * waves (another writer adds the import on the service): the next apply pins it to the
 * revision the others ran, then writes it in the wave it goes on at (or the last wave), and
 * gates it there; the part's history shows those writes in order.
 */
import { loadServices } from '../../src/api/services';
import { importedVersion } from '../../src/domain/rollout';
import { suiteOnQuickMachines, type EmulatorProject } from './fleet-fixture';
import { settleFragmentFleet, synthFragmentFleet, type FragmentFleetShape } from './rollout-fixture';

jest.setTimeout(180_000);

const MACHINES = 4;
const JOINER = 'picker-9';
let p: EmulatorProject;
suiteOnQuickMachines('ff-rollout-fragment-joiners-', (opened) => (p = opened));

const gate = { timeout: '30s', settle: '300ms' };

async function fragment(): Promise<{ id: string; revision: string }> {
  const id = (await p.backend().read('fleet')).resources['fleetform_fragment.rig']?.ids.id ?? '';
  return { id, revision: (await p.client.appClient.getFragment(id)).fragment.revision };
}

async function partOf(name: string): Promise<string> {
  const partId = (await p.backend().read('fleet')).resources[`fleetform_machine.${name}`]?.ids.part_id;
  if (!partId) throw new Error(`${name} has no part in the state`);
  return partId;
}

/** Another writer adds the fragment to the machine's config on the service, at its latest revision, as the stack's code does. */
async function importOnService(name: string, id: string): Promise<number> {
  const part = await p.client.appClient.getMachinePart(await partOf(name));
  const fragments = [...((part.config.fragments as unknown[] | undefined) ?? []), { id }];
  const after = await p.client.appClient.updateMachinePart(part.id, part.name, { ...part.config, fragments }, part.lastUpdated);
  return after.lastUpdated?.getTime() ?? 0;
}

/** Each config the part had, oldest first: when it was written and the version it imports the fragment at ('-' when not at all). */
async function importHistory(name: string, id: string, since = 0): Promise<{ at: number; version: string }[]> {
  const partId = await partOf(name);
  const app = p.client.clientFor((await loadServices()).app);
  const { history } = await app.getRobotPartHistory({ id: partId });
  const olds = history.flatMap((h) => (h.old ? [h.old] : []));
  const entries = olds.map((o) => {
    const config = (o.robotConfigJson ? JSON.parse(o.robotConfigJson) : (o.robotConfig?.toJson() ?? {})) as Record<string, unknown>;
    const at = o.lastUpdated ? Number(o.lastUpdated.seconds) * 1000 + Math.floor(o.lastUpdated.nanos / 1e6) : 0;
    return { at, version: importedVersion(config, id) ?? '-' };
  });
  const part = await p.client.appClient.getMachinePart(partId);
  entries.push({ at: part.lastUpdated?.getTime() ?? 0, version: importedVersion(part.config, id) ?? '-' });
  return entries.filter((e) => e.at >= since).sort((a, b) => a.at - b.at);
}

async function writtenAt(name: string): Promise<number> {
  return (await p.client.appClient.getMachinePart(await partOf(name))).lastUpdated?.getTime() ?? 0;
}

/** Pauses the rollout before wave 2 with the new revision saved and the canary on it; then JOINER imports the fragment. */
async function pausedWithJoiner(
  rollout: NonNullable<FragmentFleetShape['rollout']>,
): Promise<{ id: string; from: string; to: string; importedAt: number }> {
  await settleFragmentFleet(p, MACHINES, '1.2.3', 60_000, { name: JOINER, imports: false });
  const from = (await fragment()).revision;
  synthFragmentFleet(p.outdir, { machines: MACHINES, version: '1.2.5', rollout, other: { name: JOINER, imports: false } });
  const first = await p.run('apply', '--auto-approve');
  expect(first.code).toBe(0);
  expect(first.stdout).toContain('Rollout rig-careful paused at wave 2 of');
  const { id, revision: to } = await fragment();
  expect(to).not.toBe(from);
  const importedAt = await importOnService(JOINER, id);
  // The stack's code imports it too, so its own apply does not take the import back.
  synthFragmentFleet(p.outdir, { machines: MACHINES, version: '1.2.5', rollout, other: { name: JOINER, imports: true } });
  expect((await p.runBare('rollout', 'resume', 'fleet', '--rollout', 'rig-careful')).code).toBe(0);
  return { id, from, to, importedAt };
}

/** The machines of each wave, as `rollout status` lists them. */
async function wavesOfStatus(): Promise<string[][]> {
  const res = await p.runBare('rollout', 'status');
  return [...res.stdout.matchAll(/^ {2}wave \d+ \([^)]*\)[^:]*: (.*)$/gm)].map((m) =>
    (m[1] ?? '').split(', ').map((entry) => entry.split(' ')[0] ?? ''),
  );
}

test('a machine that starts importing the fragment while its rollout is paused joins the wave it goes on at, pinned to the old revision until then', async () => {
  const { id, from, to, importedAt } = await pausedWithJoiner({ canary: 0, waves: [{ pause: true }, { fraction: 1 }], gate });
  const canaryAt = await writtenAt('picker-1');
  const done = await p.run('apply', '--auto-approve');
  expect(done.stderr).toBe('');
  expect(done.code).toBe(0);
  expect(done.stdout).toContain(`rollout rig-careful: ${JOINER} joined while the rollout runs: it goes in wave 2`);
  expect(done.stdout).toMatch(new RegExp(`rollout rig-careful: wave 2: ${JOINER} healthy after`));
  expect(done.stdout).toMatch(/Rollout rig-careful: completed/);
  expect(done.stdout).toContain('pins lifted: 5 machine(s) follow what they followed');
  expect((await wavesOfStatus())[1]).toContain(JOINER);

  // Its writes in order: the import added on the service, pinned to the old revision, pinned to the new one in wave 2, the pin lifted.
  const history = await importHistory(JOINER, id, importedAt);
  expect(history.map((h) => h.version)).toEqual(['', from, to, '']);
  const inWave = history[2]?.at ?? 0;
  expect(inWave).toBeGreaterThan(canaryAt);
  expect(inWave).toBeGreaterThan(history[1]?.at ?? Infinity);
  expect((await p.run('plan')).stdout).toContain('No changes.');
});

test("lateJoiners 'last-wave': the machine is held on the old revision until the rollout's last wave writes it", async () => {
  const { id, from, to, importedAt } = await pausedWithJoiner({
    canary: 0,
    waves: [{ pause: true }, { count: 1 }, { fraction: 1 }],
    gate,
    lateJoiners: 'last-wave',
  });
  const done = await p.run('apply', '--auto-approve');
  expect(done.code).toBe(0);
  expect(done.stdout).toContain(`rollout rig-careful: ${JOINER} joined while the rollout runs: it goes in wave 3`);
  expect(done.stdout).toMatch(/Rollout rig-careful: completed/);
  const waves = await wavesOfStatus();
  expect(waves[2]).toContain(JOINER);
  const history = await importHistory(JOINER, id, importedAt);
  expect(history.map((h) => h.version)).toEqual(['', from, to, '']);
  // Wave 2's machine was written before the joiner's wave.
  const wave2 = waves[1]?.[0] ?? '';
  const wave2History = await importHistory(wave2, id, importedAt);
  const wave2At = wave2History.find((h) => h.version === to)?.at ?? Infinity;
  expect(history[2]?.at ?? 0).toBeGreaterThan(wave2At);
});
