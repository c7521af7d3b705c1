import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { FleetProvider, Location, Machine, ReconcilePolicy } from '../../src';
import { readStacks } from '../../src/engine/desired/read-stacks';
import type { ResourceChange } from '../../src/engine/plan/model';
import { windowVerdict, type SyncWindow } from '../../src/domain/sync-windows';
import { LocationWindows, locationPass } from '../../src/reconciler/location-windows';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ff-location-windows-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

// Friday 27 November 2026, 10:00 UTC: inside `deny:0 9 * * *:8h`.
const NOW = Date.parse('2026-11-27T10:00:00Z');
const verdict = (windows: readonly SyncWindow[]) => windowVerdict(windows, NOW);

function change(address: string, dependsOn: string[] = []): ResourceChange {
  return { stack: 'fleet', address, type: address.split('.')[0] ?? '', action: 'create', dependsOn } as unknown as ResourceChange;
}

test("a location's windows are synthesized by reference and hold that location's machines and what depends on them", async () => {
  const app = new App({ outdir: dir });
  const stack = new TerraformStack(app, 'fleet');
  new FleetProvider(stack, 'cloud', {});
  const north = new Location(stack, 'north', { name: 'north' });
  const south = new Location(stack, 'south', { name: 'south' });
  new Machine(stack, 'n1', { name: 'n1', location: north });
  new Machine(stack, 's1', { name: 's1', location: south });
  new Machine(stack, 'elsewhere', { name: 'elsewhere', locationId: 'loc-123' });
  new ReconcilePolicy(stack, 'reconcile', {
    locations: [
      { location: south, windows: ['deny:0 9 * * *:8h'] },
      { location: 'loc-123', windows: ['allow:0 9 * * *:8h'] },
    ],
  });
  app.synth();
  const stacks = await readStacks(dir);
  const fleet = stacks[0];
  expect(fleet?.reconcile?.locations?.map((l) => l.location)).toEqual(['${fleetform_location.south.id}', 'loc-123']);
  const address = (id: string): string => fleet?.resources.find((r) => r.name === id)?.address ?? id;
  const [n1, s1, elsewhere] = ['n1', 's1', 'elsewhere'].map(address) as [string, string, string];
  const changes = [change(n1), change(s1), change(elsewhere), change('fleetform_machine_part.s1-arm', [s1])];
  const locations = new LocationWindows(stacks, new Map(), changes);
  expect(locations.holdOf('fleet', n1, verdict)).toBeUndefined();
  expect(locations.holdOf('fleet', s1, verdict)).toEqual({ location: 'south', reason: 'inside the deny window deny:0 9 * * *:8h' });
  // Inside its allow window: not held.
  expect(locations.holdOf('fleet', elsewhere, verdict)).toBeUndefined();
  const pass = locationPass({ locations, stack: 'fleet', toApply: changes, rollouts: [], journal: undefined, verdict });
  expect(pass.writable.map((c) => c.address)).toEqual([n1, elsewhere]);
  expect(pass.held).toEqual([{ location: 'south', reason: 'inside the deny window deny:0 9 * * *:8h', machines: [s1] }]);
});

test('a location of another stack, or a bad window of a location, is refused at synth naming the field', () => {
  const app = new App({ outdir: dir });
  const one = new TerraformStack(app, 'one');
  const other = new TerraformStack(app, 'other');
  const there = new Location(other, 'there', { name: 'there' });
  expect(() => new ReconcilePolicy(one, 'reconcile', { locations: [{ location: there, windows: ['deny:0 9 * * *:8h'] }] })).toThrow(
    /ReconcilePolicy: locations\[0\]\.location: location other\/there belongs to another stack/,
  );
  expect(() => new ReconcilePolicy(one, 'reconcile2', { locations: [{ location: 'loc-1', windows: ['deny:0 9 * * *:soon'] }] })).toThrow(
    /ReconcilePolicy: locations\[0\]\.windows\[0\]: .*not a positive duration/,
  );
  expect(() => new ReconcilePolicy(one, 'reconcile3', { locations: [{ location: 'loc-1', windows: [] }] })).toThrow(
    /ReconcilePolicy: locations\.0\.windows/,
  );
});
