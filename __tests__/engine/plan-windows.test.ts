/**
 * The windows under `fleetform apply`: the wave boundary a person's apply gives its rollouts
 * pauses a wave holding a machine of a closed location, or any wave while the stack's
 * windows (its own, or `--window`) are closed; the refusal names what is held.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { FleetProvider, Location, Machine, ReconcilePolicy } from '../../src';
import { refuseHeld, windowsBoundary, checkedAgainstWindows } from '../../src/engine/windows/plan-windows';
import { readStacks } from '../../src/engine/desired/read-stacks';
import { resourceChange, type Plan } from '../../src/engine/plan-model';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ff-plan-windows-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A deny window open whatever the clock says: one opens every hour and lasts two. */
const ALWAYS_DENIED_NOW = 'deny:0 * * * *:2h';

test("a person's apply pauses a wave holding a closed location's machine, and every wave while the stack's windows are closed", async () => {
  const app = new App({ outdir: dir });
  const stack = new TerraformStack(app, 'fleet');
  new FleetProvider(stack, 'cloud', {});
  const north = new Location(stack, 'north', { name: 'north' });
  const south = new Location(stack, 'south', { name: 'south' });
  new Machine(stack, 'n1', { name: 'n1', location: north });
  new Machine(stack, 's1', { name: 's1', location: south });
  new ReconcilePolicy(stack, 'reconcile', { locations: [{ location: south, windows: [ALWAYS_DENIED_NOW] }] });
  app.synth();
  const stacks = await readStacks(dir);
  const address = (id: string): string => stacks[0]?.resources.find((r) => r.name === id)?.address ?? id;
  const [n1, s1] = ['n1', 's1'].map(address) as [string, string];
  const changes = [n1, s1].map((a) =>
    resourceChange({ stack: 'fleet', address: a, type: 'fleetform_machine', action: 'update', replaceOrder: 'delete-first' }),
  );
  const plan = { formatVersion: '1.0', createdAt: '', stacks: [], destroy: false, changes } as Plan;
  const wave = (machines: string[], first = false) => ({ stack: 'fleet', rollout: 'by-location', wave: 1, machines, first });

  const boundary = windowsBoundary(plan, stacks, new Map(), []);
  expect(boundary(wave([n1], true))).toBeUndefined();
  // The first wave of a run is asked too: a rollout resumed into a closed location pauses.
  expect(boundary(wave([n1, s1], true))).toBe(`${s1} of location south waits: inside the deny window ${ALWAYS_DENIED_NOW}`);
  const closed = windowsBoundary(plan, stacks, new Map(), [ALWAYS_DENIED_NOW]);
  expect(closed(wave([n1]))).toBe(`inside the deny window ${ALWAYS_DENIED_NOW}`);

  const checked = checkedAgainstWindows(plan, stacks, new Map(), []);
  // Denied every hour for two, the windows never open: no time is said.
  expect(() => refuseHeld(checked)).toThrow(
    `windows hold 1 change(s) now; nothing was changed: ${s1}: held: location south's window is closed (inside the deny window ${ALWAYS_DENIED_NOW})`,
  );
  expect(() => refuseHeld(plan)).not.toThrow();
});
