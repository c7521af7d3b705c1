/**
 * What a fragment change does to the machines importing it, through `fleetform plan` on the
 * emulator: the change's note names the machines that restart a module it brings (those
 * following the tag, not the one pinned to the old revision), and `--json` carries each
 * reached machine's resolved change, its secrets masked as in the rest of the plan.
 */
import { App, TerraformStack } from 'cdktf';
import { FleetProvider, Fragment, FragmentTag, Machine, ModularResource, Module, Secret } from '../../src';
import { openEmulatorProject, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(180_000);

const TOKEN = 'first-Secret-4Kq9';
const NEXT_TOKEN = 'second-Secret-7Zt2';

let p: EmulatorProject | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

/** A fragment bringing the sensors module and a board; picker-1 and -2 follow its `stable` tag, picker-3 stays on revision 1. */
function synth(project: EmulatorProject, shape: { logLevel: string; token: string }): void {
  const app = new App({ outdir: project.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new FleetProvider(stack, 'cloud', {});
  const rig = new Fragment(stack, 'rig', { name: 'sensor-rig' });
  const sensors = new Module(rig, 'sensors', {
    name: 'sensors',
    moduleId: 'acme:sensors',
    version: '~1.2',
    env: { LOG_LEVEL: shape.logLevel },
  });
  new ModularResource(rig, 'board', {
    name: 'board',
    api: 'rdk:component:board',
    model: sensors.model('pi-board'),
    attributes: { pin: rig.variable('board_pin') },
  });
  new FragmentTag(stack, 'rig-stable', { fragment: rig, tag: 'stable' });
  for (const [name, pin, version] of [
    ['picker-1', '11', 'stable'],
    ['picker-2', '12', 'stable'],
    ['picker-3', '13', '1'],
  ] as const) {
    const machine = new Machine(stack, name, { name });
    machine.useFragment(rig, { version, prefix: 'front', variables: { board_pin: pin } });
    if (name === 'picker-1')
      new Module(machine, 'vision', {
        name: 'vision',
        moduleId: 'acme:vision',
        version: '1.0.1',
        sensitiveEnv: { API_TOKEN: Secret.plainText(shape.token) },
      });
  }
  app.synth();
}

interface ResolvedJson {
  stack: string;
  address: string;
  machine: string;
  fragments: Array<{ id: string; name: string | null; address: string }>;
  changes: Array<{ path: string; kind: string; before: unknown; after: unknown }>;
  restarts: Array<{ module: string; why: string }>;
}

test('a fragment change names the machines restarting its module; --json carries each reached machine resolved, secrets masked', async () => {
  const q = (p = await openEmulatorProject('ff-fragments-reach-'));
  synth(q, { logLevel: 'info', token: TOKEN });
  const first = await q.run('apply', '--auto-approve');
  expect(first.stdout + first.stderr).not.toContain('Error');
  expect(first.code).toBe(0);
  const plain = await q.run('plan', '--json');
  expect(plain.code).toBe(0);
  expect(JSON.parse(plain.stdout)).not.toHaveProperty('resolved_machine_changes');
  const fragmentId = (await q.backend().read('fleet')).resources['fleetform_fragment.rig']?.ids.id as string;
  expect(fragmentId).toBeTruthy();

  // The module's environment changes (the two machines on the tag restart it), and picker-1's own secret.
  synth(q, { logLevel: 'debug', token: NEXT_TOKEN });
  const text = await q.run('plan');
  expect(text.code).toBe(0);
  const note = text.stdout.split('\n').find((l) => l.includes('this change reaches')) ?? '';
  expect(note).toContain('this change reaches 3 machines now (rev 1: 1, stable: 2)');
  expect(note).toContain('those following a tag run it once the tag names the new revision; those pinned to a revision stay on it');
  expect(note).toContain('restarts module acme:sensors on picker-1, picker-2');
  expect(note).not.toContain('picker-3');
  const markdown = await q.run('plan', '--markdown');
  expect(markdown.stdout).toContain('restarts module acme:sensors on picker-1, picker-2');

  const json = await q.run('plan', '--json');
  expect(json.code).toBe(0);
  expect(json.stdout).not.toContain(TOKEN);
  expect(json.stdout).not.toContain(NEXT_TOKEN);
  const resolved = (JSON.parse(json.stdout) as { resolved_machine_changes: ResolvedJson[] }).resolved_machine_changes;
  expect(resolved.map((m) => m.machine)).toEqual(['picker-1', 'picker-2']);
  const [one, two] = resolved as [ResolvedJson, ResolvedJson];
  expect(one).toMatchObject({
    stack: 'fleet',
    address: 'fleetform_machine.picker-1',
    fragments: [{ id: fragmentId, name: 'sensor-rig', address: 'fleetform_fragment.rig' }],
  });
  expect(two.changes).toEqual([{ path: 'modules.sensors.env.LOG_LEVEL', kind: 'change', before: 'info', after: 'debug' }]);
  expect(two.restarts).toEqual([{ module: 'acme:sensors', why: 'its environment changes' }]);
  expect(one.changes).toContainEqual({ path: 'modules.sensors.env.LOG_LEVEL', kind: 'change', before: 'info', after: 'debug' });
  // The secret: changed, and shown as the rest of the JSON plan shows it.
  const secret = one.changes.filter((c) => c.path.startsWith('modules.vision'));
  expect(secret.length).toBeGreaterThan(0);
  for (const c of secret) expect([c.before, c.after]).toEqual(['(sensitive)', '(sensitive)']);
  const machineChange = (
    JSON.parse(json.stdout) as {
      resource_changes: Array<{ address: string; attribute_changes: Array<{ path: string; before: unknown; after: unknown }> }>;
    }
  ).resource_changes.find((c) => c.address === 'fleetform_machine.picker-1');
  const secretInPlan = machineChange?.attribute_changes.filter((c) => c.path.startsWith('config.modules.vision')) ?? [];
  expect(secretInPlan.map((c) => [c.before, c.after])).toEqual(secret.map((c) => [c.before, c.after]));

  // Applied, the machines run it; the next plan has nothing to say of them.
  expect((await q.run('apply', '--auto-approve')).code).toBe(0);
  const after = await q.run('plan', '--json', '--detailed-exitcode');
  expect(after.code).toBe(0);
  expect(JSON.parse(after.stdout)).not.toHaveProperty('resolved_machine_changes');
});
