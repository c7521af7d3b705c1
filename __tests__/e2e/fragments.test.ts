/**
 * Fragments through `fleetform plan/apply` on the emulator: a fragment, its `stable` tag and
 * two machines importing it at the tag (prefix, variable, mod) are created in one apply; a
 * change of the fragment saves a new revision and moves the tag, noted with the machines it
 * reaches; an edit made on the service is shown as drift and reverted.
 */
import { App, TerraformStack } from 'cdktf';
import { FleetProvider, Fragment, FragmentTag, Machine, ModularResource, Module } from '../../src';
import { appliedSeed, openEmulatorProject, quickMachines, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(180_000);

let p: EmulatorProject | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

function synth(project: EmulatorProject, timeoutMs: number): void {
  const app = new App({ outdir: project.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new FleetProvider(stack, 'cloud', {});
  const rig = new Fragment(stack, 'rig', { name: 'sensor-rig' });
  const sensors = new Module(rig, 'sensors', { name: 'sensors', moduleId: 'acme:sensors', version: '~1.2' });
  new ModularResource(rig, 'board', {
    name: 'board',
    api: 'rdk:component:board',
    model: sensors.model('pi-board'),
    attributes: { pin: rig.variable('board_pin'), timeout_ms: timeoutMs },
  });
  new FragmentTag(stack, 'rig-stable', { fragment: rig, tag: 'stable' });
  for (const [name, pin] of [
    ['picker-1', '11'],
    ['picker-2', '12'],
  ] as const) {
    new Machine(stack, name, { name }).useFragment(rig, {
      version: 'stable',
      prefix: 'front',
      variables: { board_pin: pin },
      mods: [{ $set: { 'components.front-board.attributes.mode': 'fast' } }],
    });
  }
  app.synth();
}

/**
 * The fleet of `synth` (timeout 150) applied once, on an emulator of its own, kept closed: a
 * test starting from it opens a copy (its emulator's data and its state), a project and
 * emulator of its own without an apply of its own. Made by the first test that needs it.
 */
const appliedFleet = appliedSeed('ff-fragments-seed-', (seed) => synth(seed, 150));

/** A copy of the applied fleet, synthesized again (the synthesized app names its own folder); the apply's exit code is the seed's. */
async function openApplied(prefix: string): Promise<EmulatorProject> {
  const q = await openEmulatorProject(prefix, { from: await appliedFleet() });
  synth(q, 150);
  return q;
}

async function ids(project: EmulatorProject): Promise<{ fragmentId: string; machines: string[] }> {
  const state = await project.backend().read('fleet');
  const fragmentId = state.resources['fleetform_fragment.rig']?.ids.id;
  if (!fragmentId) throw new Error('no fragment in state');
  return { fragmentId, machines: ['picker-1', 'picker-2'].map((m) => state.resources[`fleetform_machine.${m}`]?.ids.machine_id ?? '') };
}

test('a fragment, its tag and machines importing it apply in one run; a change moves the tag and names the machines it reaches; drift is reverted', async () => {
  const q = (p = await openEmulatorProject('ff-fragments-'));
  synth(q, 150);
  const plan = await q.run('plan', '--detailed-exitcode');
  expect(plan.stdout).toContain('# fleetform_fragment.rig will be created');
  expect(plan.stdout).toContain('# fleetform_fragment_tag.rig-stable will be created');
  expect(plan.stdout).toContain('Plan: 4 to add, 0 to change, 0 to destroy.');
  expect(plan.code).toBe(2);

  const apply = await q.run('apply', '--auto-approve');
  // The tag the machines import at is made before them.
  expect(apply.stdout.indexOf('fleetform_fragment_tag.rig-stable: Creation complete')).toBeLessThan(
    apply.stdout.indexOf('fleetform_machine.picker-1: Creating'),
  );
  expect(apply.code).toBe(0);
  const { fragmentId, machines } = await ids(q);
  const detail = await q.client.appClient.getFragment(fragmentId);
  expect(detail.fragment).toMatchObject({ name: 'sensor-rig', revision: '1', visibility: 'private' });
  expect(detail.tags).toEqual([{ tag: 'stable', revision: '1' }]);
  const parts = await q.client.appClient.getMachineParts(machines[0] as string);
  const part = await q.client.appClient.getMachinePart(parts[0]?.id as string);
  expect(part.config.fragments).toEqual([{ id: fragmentId, version: 'stable', prefix: 'front', variables: { board_pin: '11' } }]);
  expect(part.config.fragment_mods).toEqual([
    { fragment_id: fragmentId, mods: [{ $set: { 'components.front-board.attributes.mode': 'fast' } }] },
  ]);
  // What the machine runs: the fragment's entries, prefixed, its variable set and the mod applied.
  const resolved = await q.client.appClient.listMachineFragments(machines[0] as string);
  expect(resolved.resolved.map((r) => [r.fragmentId, r.revision, r.error])).toEqual([[fragmentId, '1', undefined]]);
  expect((await q.run('plan', '--detailed-exitcode')).code).toBe(0);

  synth(q, 200);
  const change = await q.run('plan', '--detailed-exitcode');
  expect(change.stdout).toContain('# fleetform_fragment.rig will be updated in-place');
  expect(change.stdout).toContain('# fleetform_fragment_tag.rig-stable will be updated in-place');
  expect(change.stdout).toContain('this change reaches 2 machines now (stable: 2)');
  expect(change.stdout).toContain('Plan: 0 to add, 2 to change, 0 to destroy.');
  expect(change.code).toBe(2);
  // One machine's resolved change: what it runs differently, through the fragment.
  const one = await q.run('plan', '--machine', 'picker-1');
  expect(one.stdout).toContain('Machine picker-1 (fleetform_machine.picker-1) as it will run, its config resolved with its fragments:');
  expect(one.stdout).toContain('~ components.front-board.attributes.timeout_ms: 150 -> 200');
  expect(one.stdout).not.toContain('components.front-board.attributes.pin');
  const none = await q.run('plan', '--machine', 'picker-9');
  expect(none.code).toBe(1);
  expect(none.stderr).toContain('the plan has no machine named picker-9');
  expect(none.stderr).toContain('picker-1, picker-2');
  expect((await q.run('apply', '--auto-approve')).code).toBe(0);
  const changed = await q.client.appClient.getFragment(fragmentId);
  expect(changed.fragment.revision).toBe('2');
  expect(changed.tags).toEqual([{ tag: 'stable', revision: '2' }]);
  expect((changed.fragment.config.components as Array<{ attributes: unknown }>)[0]?.attributes).toEqual({
    pin: { $variable: { name: 'board_pin' } },
    timeout_ms: 200,
  });
  expect((await q.run('plan', '--detailed-exitcode')).code).toBe(0);

  // An edit in the app: shown as drift, reverted by the next apply (a new revision).
  await q.client.appClient.updateFragment(fragmentId, 'sensor-rig', { components: [], services: [], modules: [] });
  const drift = await q.run('plan', '--detailed-exitcode');
  expect(drift.stdout).toContain('# fleetform_fragment.rig will be updated in-place');
  expect(drift.stdout).toContain('apply will undo them');
  expect(drift.code).toBe(2);
  expect((await q.run('apply', '--auto-approve')).code).toBe(0);
  const reverted = await q.client.appClient.getFragment(fragmentId);
  expect(reverted.fragment.revision).toBe('4');
  expect(reverted.tags).toEqual([{ tag: 'stable', revision: '4' }]);
  expect((reverted.fragment.config.modules as Array<{ name: string }>).map((m) => m.name)).toEqual(['sensors']);
  expect((await q.run('plan', '--detailed-exitcode')).code).toBe(0);
});

test('an update guarded by the revision read at plan: an edit in between fails the apply and overwrites nothing', async () => {
  const q = (p = await openApplied('ff-fragments-guard-'));
  const { fragmentId } = await ids(q);
  synth(q, 300);
  const planned = await q.run('plan', '--out', 'fragment.plan');
  expect(planned.code).toBe(0);
  await q.client.appClient.updateFragment(fragmentId, 'sensor-rig', { components: [], services: [], modules: [] });
  const apply = await q.run('apply', 'fragment.plan');
  expect(apply.code).toBe(1);
  expect(apply.stdout + apply.stderr).toContain('fleetform_fragment.rig changed on the service since the plan');
  expect((await q.client.appClient.getFragment(fragmentId)).fragment.config).toEqual({ components: [], services: [], modules: [] });
});

/** A fragment and one machine importing it, as each case shapes them. */
function synthChecked(
  project: EmulatorProject,
  shape: {
    variables?: Record<string, string>;
    mods?: Array<{ $set: Record<string, number | string[]> }>;
    boardDependsOn?: string[];
    ownUsesFragmentModule?: boolean;
    prefix?: string;
    /** Synthesize without the checks of code, as an app that skips them: plan still checks. */
    skipValidation?: boolean;
  },
): void {
  const app = new App({ outdir: project.outdir, skipValidation: shape.skipValidation === true });
  const stack = new TerraformStack(app, 'fleet');
  new FleetProvider(stack, 'cloud', {});
  const rig = new Fragment(stack, 'rig', { name: 'sensor-rig' });
  const sensors = new Module(rig, 'sensors', { name: 'sensors', moduleId: 'acme:sensors', version: '~1.2' });
  new ModularResource(rig, 'board', {
    name: 'board',
    api: 'rdk:component:board',
    model: sensors.model('pi-board'),
    attributes: { pin: rig.variable('board_pin') },
    dependsOn: shape.boardDependsOn ?? [],
  });
  const picker = new Machine(stack, 'picker', { name: 'picker' });
  picker.useFragment(rig, {
    ...(shape.prefix ? { prefix: shape.prefix } : {}),
    ...(shape.variables ? { variables: shape.variables } : {}),
    ...(shape.mods ? { mods: shape.mods } : {}),
  });
  if (shape.ownUsesFragmentModule)
    new ModularResource(picker, 'sonar', {
      name: 'sonar',
      api: 'rdk:component:sensor',
      model: 'acme:sensors:hc-sr04',
      dependsOn: ['front-board'],
    });
  app.synth();
}

test('plan checks what each machine will run, naming machine, fragment and field, before any call; what certainly fails one resource is an error', async () => {
  const q = (p = await openEmulatorProject('ff-fragments-checks-'));
  synthChecked(q, { prefix: 'front', variables: { board_pin: '11' }, ownUsesFragmentModule: true });
  // The machine's own resource uses the fragment's module and depends on its (prefixed) board.
  const first = await q.run('apply', '--auto-approve');
  expect(first.stdout + first.stderr).not.toContain('Error');
  expect(first.code).toBe(0);
  const state = await q.backend().read('fleet');
  const rigId = state.resources['fleetform_fragment.rig']?.ids.id as string;
  expect(rigId).toBeTruthy();
  const before = await q.client.appClient.getFragment(rigId);

  const refused = async (shape: Parameters<typeof synthChecked>[1], ...expected: string[]) => {
    synthChecked(q, shape);
    const plan = await q.run('plan');
    for (const text of expected) expect(plan.stdout + plan.stderr).toContain(text);
    expect(plan.code).toBe(1);
    const apply = await q.run('apply', '--auto-approve');
    expect(apply.code).toBe(1);
  };
  await refused(
    { prefix: 'front', variables: { board_pin: '11' }, mods: [{ $set: { 'components.front-camera.attributes.fps': 5 } }] },
    'machine picker',
    'front-camera',
  );
  await refused({ prefix: 'front' }, `machine picker, fragment ${rigId}`, 'board_pin');
  await refused({ prefix: 'front', variables: { board_pin: '11', pni: '3' } }, 'pni');
  // An override that gives a resource a dependency nothing on the machine provides, its fragments resolved, certainly
  // fails that resource: an error of code named with the fragment the entry comes from, and how to acknowledge it,
  // found at synth (the fragment is the stack's), and at plan when the app skips the checks of code.
  const encoder = {
    prefix: 'front',
    variables: { board_pin: '11' },
    mods: [{ $set: { 'components.front-board.depends_on': ['encoder'] } }],
  };
  expect(() => synthChecked(q, encoder)).toThrow(
    /\[fleet\/picker\] components\.front-board\.depends_on\[0\]: fragment sensor-rig: resource "front-board" will not start: it depends on "encoder".*acknowledged: \[\{ code: 'depends-on-missing', path: "components\.front-board\.depends_on\[0\]"/,
  );
  await refused(
    { ...encoder, skipValidation: true },
    `machine picker, fragment sensor-rig (${rigId}): components.front-board.depends_on[0]`,
    'encoder',
    `acknowledged: [{ code: 'depends-on-missing', path: "components.front-board.depends_on[0]"`,
  );
  // Nothing was written by the refused applies.
  const after = await q.client.appClient.getFragment(rigId);
  expect(after.fragment.revision).toBe(before.fragment.revision);
  synthChecked(q, { prefix: 'front', variables: { board_pin: '11' }, ownUsesFragmentModule: true });
  expect((await q.run('plan', '--detailed-exitcode')).code).toBe(0);
});

test('the first plan, which creates the fragment with its machines, checks them against the fragment as declared: a mod naming nothing is refused before any call', async () => {
  const q = (p = await openEmulatorProject('ff-fragments-first-'));
  synthChecked(q, { prefix: 'front', variables: { board_pin: '11' }, mods: [{ $set: { 'components.nosuch.attributes.x': 5 } }] });
  const plan = await q.run('plan');
  expect(plan.stdout + plan.stderr).toContain('machine picker');
  expect(plan.stdout + plan.stderr).toContain('nosuch');
  expect(plan.code).toBe(1);
  const apply = await q.run('apply', '--auto-approve');
  expect(apply.code).toBe(1);
  expect(await q.client.appClient.listFragments(q.credentials.organizationId)).toEqual([]);

  // The same stack with a mod naming the fragment's (prefixed) board plans and applies.
  synthChecked(q, {
    prefix: 'front',
    variables: { board_pin: '11' },
    mods: [{ $set: { 'components.front-board.attributes.timeout_ms': 200 } }],
  });
  const fine = await q.run('plan');
  expect(fine.stdout).toContain('checked against the fragment as the stack declares it');
  // What the machine will run is shown, resolved with the fragment as declared: its board, prefixed, with the mod.
  const shown = fine.stdout.split('\n');
  const from = shown.findIndex((l) =>
    l.includes(
      '# config: what it will run, resolved with the fragments as the stack declares them (from fragment "sensor-rig", created by this apply):',
    ),
  );
  expect(from).toBeGreaterThan(-1);
  const runs = shown.slice(from + 1).filter((l) => l.trimStart().startsWith('#   '));
  const runsText = runs.join('\n');
  expect(runsText).toContain('"front-board": {');
  expect(runsText).toContain('"timeout_ms": 200');
  expect(fine.code).toBe(0);
  expect((await q.run('apply', '--auto-approve')).code).toBe(0);
  expect((await q.run('plan', '--detailed-exitcode')).code).toBe(0);
});

test("a machine importing a fragment is healthy in status once it runs the fragment's revision; a new revision is a new config", async () => {
  const restoreEnv = quickMachines();
  try {
    const q = (p = await openApplied('ff-fragments-status-'));
    const { fragmentId } = await ids(q);
    type Status = {
      machines: { machine: string; health: string; latestRevision: string; runningRevision?: string; resources: { name: string }[] }[];
    };
    const until = async (ok: (s: Status) => boolean): Promise<Status> => {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const res = await q.runBare('status', '--json');
        expect(res.code).toBe(0);
        const parsed = JSON.parse(res.stdout) as Status;
        if (ok(parsed)) return parsed;
        if (Date.now() > deadline) throw new Error(`status did not settle: ${res.stdout}`);
      }
    };
    const healthy = (revision: string) => (s: Status) =>
      s.machines.length === 2 &&
      s.machines.every((m) => m.health === 'healthy' && m.latestRevision.endsWith(` +${fragmentId}@${revision}`));
    const first = await until(healthy('1'));
    expect(first.machines[0]?.resources.map((r) => r.name)).toContain('front-board');
    synth(q, 300);
    expect((await q.run('apply', '--auto-approve')).code).toBe(0);
    await until(healthy('2'));
  } finally {
    restoreEnv();
  }
});

test('a fragment and its tag made in the app are imported by id; the next plan changes nothing', async () => {
  const q = (p = await openApplied('ff-fragments-import-'));
  const { fragmentId } = await ids(q);
  for (const address of ['fleetform_fragment_tag.rig-stable', 'fleetform_fragment.rig'])
    expect((await q.runBare('state', 'rm', address)).code).toBe(0);

  const wrong = await q.run('import', 'fleetform_fragment_tag.rig-stable', fragmentId);
  expect(wrong.code).toBe(1);
  expect(wrong.stdout + wrong.stderr).toContain('import a fragment tag by `<fragment_id>/<tag>`');
  const tag = await q.run('import', 'fleetform_fragment_tag.rig-stable', `${fragmentId}/stable`);
  expect(tag.stderr).toBe('');
  expect(tag.code).toBe(0);
  const fragment = await q.run('import', 'fleetform_fragment.rig', fragmentId);
  expect(fragment.code).toBe(0);
  const plan = await q.run('plan', '--detailed-exitcode');
  expect(plan.stdout).toContain('No changes');
  expect(plan.code).toBe(0);
});
