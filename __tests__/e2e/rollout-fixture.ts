import * as path from 'node:path';
import { App, LocalBackend, TerraformStack } from 'cdktf';
import { Component, FleetProvider, Fragment, FragmentTag, Machine, ModularResource, Module, Rollout, type RolloutProps } from '../../src';
import type { JobConfig } from '../../src/domain/config-language';
import type { EmulatorProject } from './fleet-fixture';

export interface RolloutFleetShape {
  readonly machines: number;
  /** Version policy of every machine's module. */
  readonly policy: string;
  /** The rollout; its canary wave names `canary` (a machine index) when given. */
  readonly rollout?: Omit<RolloutProps, 'waves'> & { readonly canary?: number; readonly waves: RolloutProps['waves'] };
  /** Every machine also runs a fake sensor `gate` whose reading at `allowed` is its maintenance window. */
  readonly maintenanceWindow?: boolean;
  /** Scheduled jobs every machine runs. */
  readonly jobs?: readonly JobConfig[];
}

/** The maintenance settings of a fleet with `maintenanceWindow`. */
export const MAINTENANCE_WINDOW = { sensor_name: 'rdk:component:sensor/gate', maintenance_allowed_key: 'allowed' };

/** Names of the fleet's machines: picker-1, picker-2, ... */
export function pickerNames(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `picker-${i + 1}`);
}

/** Synthesizes a fleet of machines running acme:sensors, with a rollout whose first wave is the canary when one is named. */
export function synthRolloutFleet(outdir: string, shape: RolloutFleetShape): void {
  const app = new App({ outdir });
  const stack = new TerraformStack(app, 'fleet');
  new LocalBackend(stack, { path: path.join(path.dirname(path.resolve(outdir)), 'terraform.fleet.tfstate') });
  new FleetProvider(stack, 'cloud', {});
  const machines = pickerNames(shape.machines).map((name) => {
    const machine = new Machine(stack, name, {
      name,
      ...(shape.maintenanceWindow ? { maintenance: MAINTENANCE_WINDOW } : {}),
      ...(shape.jobs ? { jobs: shape.jobs } : {}),
    });
    if (shape.maintenanceWindow) new Component(machine, 'gate', { name: 'gate', api: 'rdk:component:sensor', model: 'rdk:builtin:fake' });
    const sensors = new Module(machine, 'sensors', { moduleId: 'acme:sensors', version: shape.policy });
    new ModularResource(machine, 'board', { name: 'board-1', api: 'rdk:component:board', model: sensors.model('pi-board') });
    return machine;
  });
  if (shape.rollout) {
    const { canary, waves, ...rest } = shape.rollout;
    const first = canary === undefined ? [] : [{ machines: [machines[canary] as Machine] }];
    new Rollout(stack, 'careful', { ...rest, waves: [...first, ...waves] });
  }
  app.synth();
}

export interface FragmentFleetShape {
  readonly machines: number;
  /** The exact version of the fragment's module. */
  readonly version: string;
  /** The fragment's rollout; its canary wave is machine `canary` when given. */
  readonly rollout?: Omit<RolloutProps, 'waves' | 'fragment'> & { readonly canary?: number; readonly waves: RolloutProps['waves'] };
  /** Another machine of the stack, importing the fragment at its latest revision or not at all. */
  readonly other?: { readonly name: string; readonly imports: boolean };
}

/**
 * Synthesizes a fleet whose machines import the fragment `rig` (acme:sensors and a board):
 * every machine but the last at its `stable` tag (which follows the fragment), the last at
 * its latest revision; with the fragment's rollout when given.
 */
export function synthFragmentFleet(outdir: string, shape: FragmentFleetShape): void {
  const app = new App({ outdir });
  const stack = new TerraformStack(app, 'fleet');
  new LocalBackend(stack, { path: path.join(path.dirname(path.resolve(outdir)), 'terraform.fleet.tfstate') });
  new FleetProvider(stack, 'cloud', {});
  const rig = new Fragment(stack, 'rig', { name: 'sensor-rig' });
  const sensors = new Module(rig, 'sensors', { moduleId: 'acme:sensors', version: shape.version });
  new ModularResource(rig, 'board', { name: 'board-1', api: 'rdk:component:board', model: sensors.model('pi-board') });
  new FragmentTag(stack, 'rig-stable', { fragment: rig, tag: 'stable' });
  const names = pickerNames(shape.machines);
  const machines = names.map((name, i) =>
    new Machine(stack, name, { name }).useFragment(rig, i < names.length - 1 ? { version: 'stable' } : {}),
  );
  if (shape.other) {
    const other = new Machine(stack, shape.other.name, { name: shape.other.name });
    if (shape.other.imports) other.useFragment(rig);
  }
  if (shape.rollout) {
    const { canary, waves, ...rest } = shape.rollout;
    const first = canary === undefined ? [] : [{ machines: [machines[canary] as Machine] }];
    new Rollout(stack, 'rig-careful', { ...rest, fragment: rig, waves: [...first, ...waves] });
  }
  app.synth();
}

/**
 * A test's starting point whatever ran before it: every machine of the rollout fleet at
 * `policy` (one apply, no rollout), then waits until `fleetform status` shows each running
 * `running` (a test rolling from it needs it healthy there).
 */
export async function settleRolloutFleet(
  p: EmulatorProject,
  machines: number,
  policy: string,
  running: string,
  deadlineMs = 60_000,
  extra: Pick<RolloutFleetShape, 'jobs'> = {},
): Promise<void> {
  synthRolloutFleet(p.outdir, { machines, policy, ...extra });
  const apply = await p.run('apply', '--auto-approve');
  if (apply.code !== 0) throw new Error(`settling the fleet at ${policy} failed: ${apply.stdout}${apply.stderr}`);
  const names = pickerNames(machines);
  const until = Date.now() + deadlineMs;
  for (;;) {
    const res = await p.runBare('status', '--json');
    if (res.code !== 0) throw new Error(`status failed: ${res.stderr}`);
    const s = JSON.parse(res.stdout) as {
      machines: { machine: string; health: string }[];
      modules: { machine: string; running?: string }[];
    };
    const settled = names.every(
      (n) => s.modules.find((m) => m.machine === n)?.running === running && s.machines.find((m) => m.machine === n)?.health === 'healthy',
    );
    if (settled) return;
    if (Date.now() > until) throw new Error(`the fleet never ran ${running} everywhere, healthy; last: ${res.stdout}`);
  }
}

/**
 * A fragment-fleet test's starting point whatever ran before it: the fragment at `version`
 * on every machine (one apply, no rollout: the tag follows, pins are lifted), then waits
 * until `fleetform status` shows each machine healthy on the fragment's current revision.
 */
export async function settleFragmentFleet(
  p: EmulatorProject,
  machines: number,
  version: string,
  deadlineMs = 60_000,
  other?: FragmentFleetShape['other'],
): Promise<void> {
  synthFragmentFleet(p.outdir, { machines, version, ...(other ? { other } : {}) });
  const apply = await p.run('apply', '--auto-approve');
  if (apply.code !== 0) throw new Error(`settling the fragment at ${version} failed: ${apply.stdout}${apply.stderr}`);
  const id = (await p.backend().read('fleet')).resources['fleetform_fragment.rig']?.ids.id ?? '';
  const revision = (await p.client.appClient.getFragment(id)).fragment.revision;
  const names = pickerNames(machines);
  const until = Date.now() + deadlineMs;
  for (;;) {
    const res = await p.runBare('status', '--json');
    if (res.code !== 0) throw new Error(`status failed: ${res.stderr}`);
    const s = JSON.parse(res.stdout) as { machines: { machine: string; health: string; latestRevision: string }[] };
    const settled = names.every((n) => {
      const m = s.machines.find((x) => x.machine === n);
      return m?.health === 'healthy' && m.latestRevision.includes(`+${id}@${revision}`);
    });
    if (settled) return;
    if (Date.now() > until)
      throw new Error(`the fleet never ran revision ${revision} of the fragment everywhere, healthy; last: ${res.stdout}`);
  }
}
