/**
 * Locations through `fleetform plan/apply/destroy` on the emulator: a stack that creates
 * the organization's first location and a machine in it, renames and moves made in place,
 * nested locations, a location still holding a machine, and the order of a destroy.
 */
import { App, TerraformStack } from 'cdktf';
import type { Construct } from 'constructs';
import { FleetProvider, Location, Machine, Module } from '../../src';
import { openEmulatorProject, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(120_000);

let p: EmulatorProject | undefined;
afterEach(async () => {
  await p?.close();
  p = undefined;
});

/** A project whose organization has no location yet (its seeded one is deleted). */
async function projectWithoutLocations(): Promise<EmulatorProject> {
  p = await openEmulatorProject('ff-locations-');
  await p.client.appClient.deleteLocation(p.credentials.locationId);
  expect(await p.client.appClient.listLocations(p.credentials.organizationId)).toEqual([]);
  return p;
}

function synth(project: EmulatorProject, body: (stack: Construct) => void): void {
  const app = new App({ outdir: project.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new FleetProvider(stack, 'cloud', {});
  body(stack);
  app.synth();
}

async function idOf(project: EmulatorProject, address: string): Promise<string> {
  const entry = (await project.backend().read('fleet')).resources[address];
  const id = entry?.ids.id ?? entry?.ids.machine_id;
  if (!id) throw new Error(`no id in state for ${address}`);
  return id;
}

test('a stack creates the first location of its organization and a machine in it, the provider naming none', async () => {
  const q = await projectWithoutLocations();
  synth(q, (s) => {
    const site = new Location(s, 'site', { name: 'Site' });
    new Machine(s, 'arm', { location: site });
  });
  const plan = await q.run('plan', '--detailed-exitcode');
  expect(plan.code).toBe(2);
  expect(plan.stdout).toContain('# fleetform_location.site will be created');
  expect(plan.stdout).toMatch(/\+ location_id\s+= \(known after apply\)/);
  expect(plan.stdout).toContain('Plan: 2 to add, 0 to change, 0 to destroy.');

  const apply = await q.run('apply', '--auto-approve');
  expect(apply.code).toBe(0);
  const siteId = await idOf(q, 'fleetform_location.site');
  const location = await q.client.appClient.getLocation(siteId);
  expect(location).toMatchObject({ name: 'Site', parentLocationId: '', organizationId: q.credentials.organizationId });
  expect((await q.client.appClient.listMachines(siteId)).map((m) => m.name)).toEqual(['arm']);
  expect((await q.run('plan', '--detailed-exitcode')).code).toBe(0);
});

test('a machine that names no location, in an organization without one, fails the plan naming the fix', async () => {
  const q = await projectWithoutLocations();
  synth(q, (s) => new Machine(s, 'arm'));
  const plan = await q.run('plan');
  expect(plan.code).toBe(1);
  expect(plan.stdout).toContain(
    `Error: fleetform_machine.arm.location_id: organization ${q.credentials.organizationId} has no location to place the machine in`,
  );
  expect(plan.stdout).toContain('give the Machine a location (a Location construct or a location id)');
});

test('a new name and a new parent change a location in place: same id, its machines stay', async () => {
  const q = await projectWithoutLocations();
  const declare = (siteName: string, nested: boolean) => (s: Construct) => {
    const site = new Location(s, 'site', { name: siteName });
    const lab = new Location(s, 'lab', nested ? { name: 'Lab', parent: site } : { name: 'Lab' });
    new Machine(s, 'arm', { location: lab });
  };
  synth(q, declare('Site', true));
  expect((await q.run('apply', '--auto-approve')).code).toBe(0);
  const siteId = await idOf(q, 'fleetform_location.site');
  const labId = await idOf(q, 'fleetform_location.lab');
  const machineId = await idOf(q, 'fleetform_machine.arm');
  expect((await q.client.appClient.getLocation(labId)).parentLocationId).toBe(siteId);

  synth(q, declare('Campus', true));
  const rename = await q.run('plan', '--detailed-exitcode');
  expect(rename.code).toBe(2);
  expect(rename.stdout).toContain('# fleetform_location.site will be updated in-place');
  expect(rename.stdout).toMatch(/~ name\s+= "Site" -> "Campus"/);
  expect(rename.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
  expect((await q.run('apply', '--auto-approve')).code).toBe(0);
  expect((await q.client.appClient.getLocation(siteId)).name).toBe('Campus');

  synth(q, declare('Campus', false));
  const move = await q.run('plan', '--detailed-exitcode');
  expect(move.code).toBe(2);
  expect(move.stdout).toContain('# fleetform_location.lab will be updated in-place');
  expect(move.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
  expect((await q.run('apply', '--auto-approve')).code).toBe(0);
  expect(await q.client.appClient.getLocation(labId)).toMatchObject({ id: labId, parentLocationId: '' });
  expect((await q.client.appClient.listMachines(labId)).map((m) => m.id)).toEqual([machineId]);
  expect((await q.run('plan', '--detailed-exitcode')).code).toBe(0);
});

test('deleting a location that still holds a machine fails, naming the machine; the location stays', async () => {
  const q = await projectWithoutLocations();
  synth(q, (s) => new Location(s, 'site', { name: 'Site' }));
  expect((await q.run('apply', '--auto-approve')).code).toBe(0);
  const siteId = await idOf(q, 'fleetform_location.site');
  const outsider = await q.client.appClient.newMachine('outsider', siteId);

  synth(q, () => undefined);
  const apply = await q.run('apply', '--auto-approve');
  expect(apply.code).toBe(1);
  const output = apply.stdout + apply.stderr;
  expect(output).toContain(`cannot delete location ${siteId}`);
  expect(output).toContain(`outsider (${outsider})`);
  expect(output).toContain('remove or move the machines and locations it holds first');
  expect((await q.client.appClient.getLocation(siteId)).name).toBe('Site');
  expect(Object.keys((await q.backend().read('fleet')).resources)).toEqual(['fleetform_location.site']);
});

test('destroy deletes the machines before the locations they live in, inner locations before outer ones', async () => {
  const q = await projectWithoutLocations();
  synth(q, (s) => {
    const site = new Location(s, 'site', { name: 'Site' });
    const lab = new Location(s, 'lab', { name: 'Lab', parent: site });
    new Machine(s, 'arm', { location: lab });
    new Machine(s, 'cart', { location: site });
  });
  expect((await q.run('apply', '--auto-approve')).code).toBe(0);
  const destroyed = await q.run('destroy', '--auto-approve');
  expect(destroyed.code).toBe(0);
  expect(destroyed.stdout).toContain('Destroy complete! Resources: 0 added, 0 changed, 4 destroyed.');
  expect(await q.client.appClient.listLocations(q.credentials.organizationId)).toEqual([]);
  expect(Object.keys((await q.backend().read('fleet')).resources)).toEqual([]);
});

test('a location made outside is imported by id; a rename made outside is drift that apply reverts', async () => {
  const q = await projectWithoutLocations();
  const { organizationId } = q.credentials;
  const outer = await q.client.appClient.createLocation(organizationId, 'outer');
  const inner = await q.client.appClient.createLocation(organizationId, 'inner', outer.id);
  synth(q, (s) => new Location(s, 'inner', { name: 'inner', parent: outer.id }));
  const imported = await q.run('import', 'fleetform_location.inner', inner.id);
  expect(imported.code).toBe(0);
  expect((await q.run('plan', '--detailed-exitcode')).code).toBe(0);

  await q.client.appClient.updateLocation(inner.id, 'renamed', outer.id);
  const drift = await q.run('plan', '--detailed-exitcode');
  expect(drift.code).toBe(2);
  expect(drift.stdout).toContain('# fleetform_location.inner will be updated in-place');
  expect(drift.stdout).toMatch(/~ name\s+= "renamed" -> "inner"/);
  expect((await q.run('apply', '--auto-approve')).code).toBe(0);
  expect(await q.client.appClient.getLocation(inner.id)).toMatchObject({ name: 'inner', parentLocationId: outer.id });
});

test('a module of a machine in a Location gets that location as VIAM_LOCATION_ID from fleetform env', async () => {
  const q = await projectWithoutLocations();
  // Another location, so the organization has no single default the env could fall back to.
  await q.client.appClient.createLocation(q.credentials.organizationId, 'other');
  synth(q, (s) => {
    const machine = new Machine(s, 'arm', { location: new Location(s, 'site') });
    new Module(machine, 'sensors', { moduleId: 'acme:sensors', version: '~1.2' });
  });
  expect((await q.run('apply', '--auto-approve')).code).toBe(0);
  const out = await q.run('env', 'fleetform_machine.arm', 'acme_sensors');
  expect(out.code).toBe(0);
  expect(out.stdout.trim().split('\n')).toContain(`VIAM_LOCATION_ID=${await idOf(q, 'fleetform_location.site')}`);
});

test('with several locations, only a machine that names none fails the plan; one given a location plans', async () => {
  p = await openEmulatorProject('ff-locations-');
  const q = p;
  const second = await q.client.appClient.createLocation(q.credentials.organizationId, 'second');
  synth(q, (s) => {
    new Machine(s, 'placed', { location: second.id });
    new Machine(s, 'unplaced');
  });
  const plan = await q.run('plan');
  expect(plan.code).toBe(1);
  expect(plan.stdout).toContain(
    `Error: fleetform_machine.unplaced.location_id: organization ${q.credentials.organizationId} has 2 locations: the machine must say which`,
  );
  expect(plan.stdout).not.toContain('fleetform_machine.placed.location_id');

  synth(q, (s) => new Machine(s, 'placed', { location: second.id }));
  expect((await q.run('apply', '--auto-approve')).code).toBe(0);
  expect((await q.client.appClient.listMachines(second.id)).map((m) => m.name)).toEqual(['placed']);
});

test('a machine that names no location stays where it is when a second location appears: the next plan says No changes', async () => {
  p = await openEmulatorProject('ff-locations-');
  const q = p;
  synth(q, (s) => new Machine(s, 'unplaced'));
  expect((await q.run('apply', '--auto-approve')).code).toBe(0);
  // The stack adds a location and a machine placed in it; the first machine keeps its location.
  synth(q, (s) => {
    new Machine(s, 'placed', { location: new Location(s, 'yard-b', { name: 'Yard B' }) });
    new Machine(s, 'unplaced');
  });
  const apply = await q.run('apply', '--auto-approve');
  expect(apply.stdout).not.toContain('fleetform_machine.unplaced');
  expect(apply.code).toBe(0);
  const plan = await q.run('plan', '--detailed-exitcode');
  expect(plan.stdout).toContain('No changes.');
  expect(plan.code).toBe(0);
  expect((await q.client.appClient.listMachines(q.credentials.locationId)).map((m) => m.name)).toEqual(['unplaced']);
});

test('the first plan of a stack that creates a second location says a new machine naming none must say which, as every later plan would', async () => {
  p = await openEmulatorProject('ff-locations-');
  const q = p;
  synth(q, (s) => {
    new Machine(s, 'placed', { location: new Location(s, 'yard-b', { name: 'Yard B' }) });
    new Machine(s, 'unplaced');
  });
  const plan = await q.run('plan');
  expect(plan.code).toBe(1);
  expect(plan.stdout).toContain(
    `Error: fleetform_machine.unplaced.location_id: organization ${q.credentials.organizationId} will have 2 locations once this stack creates 1 more: the machine must say which`,
  );
  expect(plan.stdout).not.toContain('fleetform_machine.placed.location_id');
});
