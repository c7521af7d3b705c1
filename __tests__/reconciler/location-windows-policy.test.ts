import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { FleetProvider, Location, Machine, ReconcilePolicy } from '../../src';
import { readStacks } from '../../src/engine/desired/read-stacks';
import { resourceChange, type Plan, type ResourceChange, type WindowHold } from '../../src/engine/plan-model';
import type { RolloutPlan } from '../../src/domain/rollout';
import { opensAt, parseWindow, windowVerdict, type SyncWindow } from '../../src/domain/sync-windows';
import { planView } from '../../src/dashboard/plan-view';
import { holdText } from '../../src/engine/render/holds';
import { LocationWindows, locationPass } from '../../src/engine/windows/location-windows';
import { stackWindows } from '../../src/engine/windows/stack-windows';
import { windowClock, windowHolds } from '../../src/engine/windows/window-holds';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ff-location-windows-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

// Friday 27 November 2026, 10:00 UTC: inside `deny:0 9 * * *:8h`.
const NOW = Date.parse('2026-11-27T10:00:00Z');
const verdict = (windows: readonly SyncWindow[]) => windowVerdict(windows, NOW);

function change(address: string, dependsOn: string[] = []): ResourceChange {
  return resourceChange({
    stack: 'fleet',
    address,
    type: address.split('.')[0] ?? '',
    action: 'create',
    replaceOrder: 'delete-first',
    dependsOn,
  });
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
  expect(locations.holdOf('fleet', s1, verdict)).toMatchObject({ location: 'south', reason: 'inside the deny window deny:0 9 * * *:8h' });
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

test('opensAt finds when windows let applies start again: the end of a deny window, the start of an allow window, none when always closed', () => {
  expect(new Date(opensAt([parseWindow('deny:0 9 * * *:8h')], NOW) ?? 0).toISOString()).toBe('2026-11-27T17:00:00.000Z');
  expect(new Date(opensAt([parseWindow('allow:0 20 * * *:2h')], NOW) ?? 0).toISOString()).toBe('2026-11-27T20:00:00.000Z');
  // An allow window inside a deny window: the first time it is allowed and not denied.
  const both = [parseWindow('deny:0 9 * * *:12h'), parseWindow('allow:0 * * * *:30m')];
  expect(new Date(opensAt(both, NOW) ?? 0).toISOString()).toBe('2026-11-27T21:00:00.000Z');
  expect(opensAt([parseWindow('deny:0 0 * * *:24h')], NOW)).toBeUndefined();
  expect(opensAt([], NOW)).toBe(NOW);
});

test("a plan's holds: a closed location's machine, what depends on it, a rollout from the wave holding one on, a closed stack", async () => {
  const app = new App({ outdir: dir });
  const stack = new TerraformStack(app, 'fleet');
  new FleetProvider(stack, 'cloud', {});
  const north = new Location(stack, 'north', { name: 'north' });
  const south = new Location(stack, 'south', { name: 'south' });
  new Machine(stack, 'n1', { name: 'n1', location: north });
  new Machine(stack, 's1', { name: 's1', location: south });
  new ReconcilePolicy(stack, 'reconcile', { locations: [{ location: south, windows: ['deny:0 9 * * *:8h'] }] });
  app.synth();
  const stacks = await readStacks(dir);
  const address = (id: string): string => stacks[0]?.resources.find((r) => r.name === id)?.address ?? id;
  const [n1, s1] = ['n1', 's1'].map(address) as [string, string];
  const part = 'fleetform_machine_part.s1-arm';
  const changes = [change(n1), change(s1), change(part, [s1])];
  const plan = { formatVersion: '1.0', createdAt: '', stacks: [], destroy: false, changes } as unknown as Plan;
  const checked = windowHolds({ stacks, states: new Map(), plan, windowsOf: stackWindows, clock: windowClock(NOW) });
  const until = '2026-11-27T17:00:00.000Z';
  const reason = 'inside the deny window deny:0 9 * * *:8h';
  expect(checked).toEqual({
    checkedAt: new Date(NOW).toISOString(),
    holds: [
      { stack: 'fleet', address: s1, scope: 'location', location: 'south', reason, until },
      { stack: 'fleet', address: part, scope: 'location', location: 'south', reason, until, dependsOn: s1 },
    ],
  });
  // The plan's text (the dashboard's plan view renders it too) says it under the change, and counts it.
  const text = planView({ ...plan, windows: checked }).text;
  expect(text).toContain(`  # ${s1} will be created\n  #   held: location south's window is closed until ${until} (${reason})\n`);
  expect(text).toContain(`Windows would hold 2 of the 3 change(s) if applied now (checked at ${new Date(NOW).toISOString()}).`);
  expect(planView(plan).text).not.toContain('held');
  expect(holdText(checked?.holds[1] as WindowHold)).toBe(
    `held: it depends on ${s1}: location south's window is closed until ${until} (${reason})`,
  );

  // A rollout north then south, an update of each: south's wave holds; a third wave of north waits with it. The part
  // is no longer held with its machine: the machine waits at its wave's boundary, not in the plain apply.
  const rollouts: RolloutPlan[] = [
    {
      stack: 'fleet',
      policy: { name: 'by-location' } as RolloutPlan['policy'],
      waves: [
        { rule: 'location north', machines: [{ address: n1, name: 'n1' }] },
        { rule: 'location south', machines: [{ address: s1, name: 's1' }] },
        { rule: 'the rest', machines: [{ address: 'fleetform_machine.n2', name: 'n2' }] },
      ],
    },
  ];
  const staged = windowHolds({ stacks, states: new Map(), plan: { ...plan, rollouts }, windowsOf: stackWindows, clock: windowClock(NOW) });
  const rollout = { name: 'by-location', wave: 2, machine: s1 };
  expect(staged?.holds.map((h) => [h.address, h.rollout, h.dependsOn])).toEqual([
    [s1, rollout, undefined],
    ['fleetform_machine.n2', rollout, undefined],
  ]);
  expect(holdText(staged?.holds[0] as WindowHold)).toBe(
    `held: its rollout by-location pauses before wave 2: location south's window is closed until ${until} (${reason})`,
  );

  // The stack's own windows closed: every change of the stack is held by them.
  const closed = windowHolds({
    stacks,
    states: new Map(),
    plan,
    windowsOf: () => [parseWindow('allow:0 20 * * *:2h')],
    clock: windowClock(NOW),
  });
  expect(closed?.holds.map((h) => `${h.address} ${h.scope} ${h.until ?? ''}`)).toEqual(
    [n1, s1, part].map((a) => `${a} stack 2026-11-27T20:00:00.000Z`),
  );
  expect(holdText(closed?.holds[0] as WindowHold)).toBe(
    "held: stack fleet's windows are closed until 2026-11-27T20:00:00.000Z (outside every allow window (allow:0 20 * * *:2h))",
  );
});
