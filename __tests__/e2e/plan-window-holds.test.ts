/**
 * `fleetform plan` says what windows would hold if the plan were applied now, on the
 * emulator with the command line: a project of two locations whose policy gives `south` a
 * deny window open now (built from the test's clock). The plan's text, markdown and JSON
 * carry each hold and the count; `fleetform apply` refuses to write while a window holds a
 * change and writes with `--ignore-windows`; a rollout by location shows the wave it pauses
 * before; `--window` adds the reconciler's windows to the stack's.
 */
import * as path from 'node:path';
import { App, LocalBackend, TerraformStack } from 'cdktf';
import { FleetProvider, Location, Machine, Module, ReconcilePolicy, Rollout } from '../../src';
import { openEmulatorProject, quickMachines, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(180_000);

let p: EmulatorProject;
let restoreEnv: (() => void) | undefined;

beforeAll(async () => {
  restoreEnv = quickMachines();
  p = await openEmulatorProject('ff-plan-window-holds-');
});

afterAll(async () => {
  await p?.close();
  restoreEnv?.();
});

/** A deny window that opened five minutes before now (UTC) and lasts three hours, and when it closes: closed for the whole test. */
function denyingNow(): { spec: string; until: string } {
  const opened = new Date(Date.now() - 5 * 60_000);
  opened.setUTCSeconds(0, 0);
  return {
    spec: `deny:${opened.getUTCMinutes()} ${opened.getUTCHours()} * * *:3h:UTC`,
    until: new Date(opened.getTime() + 3 * 3_600_000).toISOString(),
  };
}

/** A machine in each of north and south running acme:sensors at `version`, a rollout north then south, south's window as given. */
function synth(version: string, southWindows: readonly string[]): void {
  const app = new App({ outdir: p.outdir });
  const stack = new TerraformStack(app, 'fleet');
  new LocalBackend(stack, { path: path.join(p.dir, 'terraform.fleet.tfstate') });
  new FleetProvider(stack, 'cloud', {});
  const north = new Location(stack, 'north', { name: 'north' });
  const south = new Location(stack, 'south', { name: 'south' });
  for (const [name, location] of [
    ['north-1', north],
    ['south-1', south],
  ] as const) {
    const machine = new Machine(stack, name, { name, location });
    new Module(machine, 'sensors', { moduleId: 'acme:sensors', version });
  }
  new Rollout(stack, 'by-location', { waves: [{ location: north }, { location: south }], gate: { timeout: '60s', settle: '100ms' } });
  new ReconcilePolicy(stack, 'reconcile', { locations: [{ location: south, windows: [...southWindows] }] });
  app.synth();
}

interface JsonHold {
  stack: string;
  address: string;
  scope: string;
  location: string | null;
  reason: string;
  until: string | null;
  depends_on: string | null;
  rollout: { name: string; wave: number; machine: string } | null;
}

interface JsonPlan {
  resource_changes: { address: string; change: { actions: string[] }; window_hold?: JsonHold | null }[];
  summary: { change: number; held?: number };
  window_holds?: { checked_at: string; held: number; holds: JsonHold[] };
}

async function planJson(...args: string[]): Promise<JsonPlan> {
  const r = await p.run('plan', '--json', ...args);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as JsonPlan;
}

async function machineNames(): Promise<string[]> {
  const out: string[] = [];
  for (const location of await p.client.appClient.listLocations(p.credentials.organizationId))
    for (const m of await p.client.appClient.listMachines(location.id)) out.push(`${location.name}/${m.name}`);
  return out.sort();
}

test("the plan says which changes a location's closed window holds and until when; apply refuses them unless --ignore-windows", async () => {
  const deny = denyingNow();
  const reason = `inside the deny window ${deny.spec}`;
  synth('~1.2', [deny.spec]);

  // Text: the held machine says so under its headline, the summary counts it.
  const plan = await p.run('plan');
  expect(plan.code).toBe(0);
  expect(plan.stdout).toContain(
    `  # fleetform_machine.south-1 will be created\n  #   held: location south's window is closed until ${deny.until} (${reason})\n`,
  );
  expect(plan.stdout).toMatch(/ {2}# fleetform_machine\.north-1 will be created\n {2}\+ resource/);
  expect(plan.stdout).toMatch(/Windows would hold 1 of the 4 change\(s\) if applied now \(checked at \S+\)\./);

  // JSON: each change's hold (null when none), the count in the summary, the list.
  const json = await planJson();
  const held = json.resource_changes.filter((c) => c.window_hold);
  expect(held.map((c) => c.address)).toEqual(['fleetform_machine.south-1']);
  expect(held[0]?.window_hold).toEqual({
    stack: 'fleet',
    address: 'fleetform_machine.south-1',
    scope: 'location',
    location: 'south',
    reason,
    until: deny.until,
    depends_on: null,
    rollout: null,
  });
  expect(json.resource_changes.find((c) => c.address === 'fleetform_machine.north-1')?.window_hold).toBeNull();
  expect(json.summary.held).toBe(1);
  expect(json.window_holds).toMatchObject({ held: 1, holds: [held[0]?.window_hold] });

  // Markdown, for a pull request: the count up front, the hold in the stack's diff.
  const markdown = await p.run('plan', '--markdown');
  expect(markdown.stdout).toContain(':hourglass: Windows would hold 1 of the 4 change(s) if applied now');
  expect(markdown.stdout).toContain(`#   held: location south's window is closed until ${deny.until} (${reason})`);

  // A person's apply writes nothing while a window holds a change.
  const refused = await p.run('apply', '--auto-approve');
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(
    'error: windows hold 1 change(s) now; nothing was changed: fleetform_machine.south-1: held: location south',
  );
  expect(refused.stderr).toContain('--ignore-windows');
  expect(await machineNames()).toEqual([]);

  // Told to, it writes them, saying so.
  const forced = await p.run('apply', '--auto-approve', '--ignore-windows');
  expect(forced.stderr).toBe('');
  expect(forced.code).toBe(0);
  expect(forced.stdout).toContain('Warning: --ignore-windows: writing 1 change(s) the windows hold now.');
  expect(await machineNames()).toEqual(['north/north-1', 'south/south-1']);

  // An update rolls out by location: the plan shows south's wave held, north's not.
  synth('~1.3', [deny.spec]);
  const rolled = await p.run('plan');
  expect(rolled.stdout).toContain(
    `  # fleetform_machine.south-1 will be updated in-place\n  #   held: its rollout by-location pauses before wave 2: location south's window is closed until ${deny.until} (${reason})\n`,
  );
  expect(rolled.stdout).toMatch(/ {2}# fleetform_machine\.north-1 will be updated in-place\n {2}~ resource/);
  expect(rolled.stdout).toMatch(/Windows would hold 1 of the 2 change\(s\) if applied now/);
  const rolledJson = await planJson();
  expect(rolledJson.window_holds?.holds.map((h) => [h.address, h.rollout])).toEqual([
    ['fleetform_machine.south-1', { name: 'by-location', wave: 2, machine: 'fleetform_machine.south-1' }],
  ]);

  // A saved plan is checked against the windows when it is applied: nothing is written.
  const savedPlan = path.join(p.dir, 'held.plan');
  expect((await p.run('plan', '--out', savedPlan)).code).toBe(0);
  const savedRefused = await p.run('apply', savedPlan);
  expect(savedRefused.stderr).toContain(
    'error: windows hold 1 change(s) now; nothing was changed: fleetform_machine.south-1: held: its rollout by-location pauses before wave 2',
  );
  expect(savedRefused.code).toBe(1);
  expect(await planJson()).toMatchObject({ summary: { change: 2, held: 1 } });

  // The reconciler's windows given again with --window hold the whole stack.
  const everything = await planJson('--window', deny.spec);
  expect(everything.summary.held).toBe(2);
  expect(everything.window_holds?.holds.map((h) => `${h.address} ${h.scope} ${h.until ?? ''}`)).toEqual([
    `fleetform_machine.north-1 stack ${deny.until}`,
    `fleetform_machine.south-1 stack ${deny.until}`,
  ]);
});
