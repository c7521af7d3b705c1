/**
 * An organization's default fragments through `fleetform plan/apply` on the emulator: set
 * with a fragment at a tag the stack declares, typed variables and a prefix; a machine made
 * outside fleetform starts importing them; a new machine in code that does not import them
 * is told its first write replaces them, and writes the config its code declares; removing
 * the construct clears them. Each apply is followed by a plan with no changes.
 */
import { App, TerraformStack } from 'cdktf';
import type { Construct } from 'constructs';
import { FleetProvider, Fragment, FragmentTag, Machine, ModularResource, OrganizationDefaults } from '../../src';
import { openEmulatorProject, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(120_000);

let p: EmulatorProject | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

const variables = { pin: 11, fast: true, limits: { max: 3, names: ['x'] } };

function synth(project: EmulatorProject, body: (stack: Construct, rig: Fragment) => void): void {
  const app = new App({ outdir: project.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new FleetProvider(stack, 'cloud', {});
  const rig = new Fragment(stack, 'rig', { name: 'rig' });
  new ModularResource(rig, 'board', {
    name: 'board',
    api: 'rdk:component:board',
    model: 'rdk:builtin:fake',
    attributes: { pin: rig.variable('pin'), fast: rig.variable('fast'), limits: rig.variable('limits') },
  });
  new FragmentTag(stack, 'rig-stable', { fragment: rig, tag: 'stable' });
  body(stack, rig);
  app.synth();
}

async function idOf(project: EmulatorProject, address: string): Promise<string> {
  const entry = (await project.backend().read('fleet')).resources[address];
  const id = entry?.ids.id ?? entry?.ids.machine_id;
  if (!id) throw new Error(`no id in state for ${address}`);
  return id;
}

async function mainConfig(project: EmulatorProject, machineId: string): Promise<Record<string, unknown> | undefined> {
  return (await project.client.appClient.getMachineParts(machineId)).find((part) => part.mainPart)?.config;
}

test('defaults are set, reach machines made elsewhere, are replaced by a machine declared without them, and are cleared', async () => {
  const q = (p = await openEmulatorProject('ff-org-defaults-'));
  const { organizationId, locationId } = q.credentials;
  const withDefaults = (machines: (stack: Construct, rig: Fragment) => void) => (s: Construct, rig: Fragment) => {
    new OrganizationDefaults(s, 'defaults', { fragments: [{ fragment: rig, version: 'stable', prefix: 'front', variables }] });
    machines(s, rig);
  };
  synth(
    q,
    withDefaults(() => undefined),
  );
  const plan = await q.run('plan', '--detailed-exitcode');
  expect(plan.code).toBe(2);
  expect(plan.stdout).toContain('# fleetform_organization_defaults.defaults will be created');
  expect((await q.run('apply', '--auto-approve')).code).toBe(0);
  const rigId = await idOf(q, 'fleetform_fragment.rig');
  const declared = [{ id: rigId, version: 'stable', prefix: 'front', variables }];
  expect((await q.client.appClient.getOrganization(organizationId)).defaultFragments).toEqual(declared);
  expect(await idOf(q, 'fleetform_organization_defaults.defaults')).toBe(organizationId);
  expect((await q.run('plan', '--detailed-exitcode')).code).toBe(0);

  // A machine made outside fleetform starts importing them.
  const outside = await q.client.appClient.newMachine('outside', locationId);
  expect(await mainConfig(q, outside)).toEqual({ fragments: declared });

  // A machine declared without them is told, and writes what its code declares; one importing them keeps them.
  synth(
    q,
    withDefaults((s, rig) => {
      new Machine(s, 'cart');
      new Machine(s, 'picker').useFragment(rig, { version: 'stable', prefix: 'front', variables });
    }),
  );
  const machines = await q.run('plan', '--detailed-exitcode');
  expect(machines.code).toBe(2);
  expect(machines.stdout).toContain(
    `the organization's default fragment(s) ${rigId}, which a new machine starts importing, are not in this config`,
  );
  expect(machines.stdout.split("the organization's default fragment(s)").length).toBe(2);
  expect((await q.run('apply', '--auto-approve')).code).toBe(0);
  expect(await mainConfig(q, await idOf(q, 'fleetform_machine.cart'))).not.toHaveProperty('fragments');
  expect((await mainConfig(q, await idOf(q, 'fleetform_machine.picker')))?.fragments).toEqual(declared);
  expect((await q.run('plan', '--detailed-exitcode')).code).toBe(0);

  // A change on the service is drift the next plan shows, and apply sets it back.
  await q.client.appClient.setDefaultFragments(organizationId, [{ id: rigId, variables: { pin: '12' } }]);
  const drift = await q.run('plan', '--detailed-exitcode');
  expect(drift.code).toBe(2);
  expect(drift.stdout).toContain('# fleetform_organization_defaults.defaults will be updated in-place');
  expect(drift.stdout).toContain('~ fragments[0].variables.pin = "12" -> 11');
  expect((await q.run('apply', '--auto-approve')).code).toBe(0);
  expect((await q.client.appClient.getOrganization(organizationId)).defaultFragments).toEqual(declared);

  // Removed from code: the list is cleared.
  synth(q, () => undefined);
  const removal = await q.run('plan', '--detailed-exitcode');
  expect(removal.stdout).toContain('# fleetform_organization_defaults.defaults will be destroyed');
  expect((await q.run('apply', '--auto-approve')).code).toBe(0);
  expect((await q.client.appClient.getOrganization(organizationId)).defaultFragments).toEqual([]);
});

test('defaults naming a fragment the organization cannot import, or given twice, fail the plan naming the fix', async () => {
  const q = (p = await openEmulatorProject('ff-org-defaults-bad-'));
  synth(q, (s) => new OrganizationDefaults(s, 'defaults', { fragments: [{ fragment: 'no-such-fragment' }] }));
  const plan = await q.run('plan');
  expect(plan.code).toBe(1);
  expect(plan.stdout).toContain(
    "fleetform_organization_defaults.defaults.fragments[0].id: no fragment no-such-fragment the organization's machines may import",
  );

  // Two for one organization stop the app's synth, naming both.
  expect(() =>
    synth(q, (s, rig) => {
      new OrganizationDefaults(s, 'a', { fragments: [{ fragment: rig }] });
      new OrganizationDefaults(s, 'b', { fragments: [] });
    }),
  ).toThrow('has its default fragments declared more than once: here and at fleet/b');
});
