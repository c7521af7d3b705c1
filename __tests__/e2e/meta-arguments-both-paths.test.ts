/**
 * One stack with CDKTF's meta-arguments (for_each, count, lifecycle's prevent_destroy,
 * ignore_changes, create_before_destroy, replace_triggered_by, depends_on) run through
 * fleetform's engine and through the real Terraform CLI with fleetform's provider, each
 * against the same emulator under its own names: both plan the same actions per address,
 * apply the same, and refuse the same.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { App, LocalBackend, TerraformCount, TerraformIterator, TerraformStack, Token } from 'cdktf';
import { Dataset, FleetProvider, Machine } from '../../src';
import { requireTerraform, terraform, terraformHome } from '../provider/terraform-cli';
import { openEmulatorProject, type CliResult, type EmulatorProject } from './fleet-fixture';

jest.setTimeout(300_000);

interface Version {
  /** Names of the machines with count; ignored after create. */
  readonly armSuffix: string;
  readonly triggerName: string;
  readonly keptName: string;
  readonly swappedName: string;
  readonly arms: number;
}

const V1: Version = { armSuffix: 'one', triggerName: 'trigger-1', keptName: 'kept', swappedName: 'swap-1', arms: 2 };

/** The stack, its names prefixed so the two paths' objects never meet on the service. */
function synth(outdir: string, prefix: string, v: Version): void {
  const app = new App({ outdir });
  const stack = new TerraformStack(app, 'fleet');
  new LocalBackend(stack, { path: path.join(path.dirname(path.resolve(outdir)), `terraform.${prefix}.tfstate`) });
  new FleetProvider(stack, 'cloud', {});
  const names = TerraformIterator.fromList([`${prefix}a`, `${prefix}b`]);
  const sets = new Dataset(stack, 'sets', { name: Token.asString(names.value) });
  sets.forEach = names;
  new Dataset(stack, 'kept', { name: `${prefix}${v.keptName}` }).lifecycle = { preventDestroy: true };
  const trigger = new Dataset(stack, 'trigger', { name: `${prefix}${v.triggerName}` });
  new Dataset(stack, 'swapped', { name: `${prefix}${v.swappedName}` }).lifecycle = { createBeforeDestroy: true };
  const count = TerraformCount.of(v.arms);
  const arm = new Machine(stack, 'arm', { name: `${prefix}arm-${Token.asString(count.index)}-${v.armSuffix}` });
  arm.count = count;
  arm.lifecycle = { ignoreChanges: ['name'] };
  arm.dependsOn = ['fleetform_dataset.sets'];
  void sets;
  const follower = new Machine(stack, 'follower', { name: `${prefix}follower` });
  // Written as a bare address: Terraform reads replace_triggered_by as expressions and
  // refuses the `${...}` form cdktf writes for a construct (fleetform's engine reads both).
  follower.lifecycle = { replaceTriggeredBy: ['fleetform_dataset.trigger'] };
  void trigger;
  app.synth();
}

type Actions = Record<string, string>;

function fleetformActions(result: CliResult): Actions {
  const doc = JSON.parse(result.stdout) as { resource_changes: Array<{ address: string; change: { actions: string[] } }> };
  return Object.fromEntries(
    doc.resource_changes.filter((c) => c.change.actions.join() !== 'no-op').map((c) => [c.address, c.change.actions.join(',')]),
  );
}

let project: EmulatorProject;
let env: NodeJS.ProcessEnv;
let tfOut: string;
let ffOut: string;

beforeAll(async () => {
  requireTerraform();
  project = await openEmulatorProject('ff-meta-');
  env = await terraformHome(project.dir, project.env);
  tfOut = path.join(project.dir, 'tf.out');
  ffOut = project.outdir;
});

afterAll(async () => {
  await project?.close();
});

const tfDir = (): string => path.join(tfOut, 'stacks', 'fleet');
const tf = (...args: string[]) => terraform(tfDir(), env, ...args);

async function terraformActions(): Promise<Actions> {
  const plan = await tf('plan', '-input=false', '-no-color', '-out', 'tfplan');
  if (plan.code !== 0) throw new Error(`terraform plan failed: ${plan.stderr}`);
  const shown = await tf('show', '-json', 'tfplan');
  const doc = JSON.parse(shown.stdout) as { resource_changes?: Array<{ address: string; change: { actions: string[] } }> };
  return Object.fromEntries(
    (doc.resource_changes ?? []).filter((c) => c.change.actions.join() !== 'no-op').map((c) => [c.address, c.change.actions.join(',')]),
  );
}

async function both(v: Version): Promise<{ fleetform: Actions; terraform: Actions }> {
  synth(ffOut, 'ff-', v);
  synth(tfOut, 'tf-', v);
  const plan = await project.run('plan', '--json');
  if (plan.code !== 0) throw new Error(`fleetform plan failed: ${plan.stderr}`);
  return { fleetform: fleetformActions(plan), terraform: await terraformActions() };
}

async function applyBoth(): Promise<void> {
  const ff = await project.run('apply', '--auto-approve');
  expect(ff.stderr).toBe('');
  expect(ff.code).toBe(0);
  const t = await tf('apply', '-input=false', '-no-color', '-auto-approve');
  expect({ stderr: t.stderr, stdout: t.stderr ? t.stdout : '' }).toEqual({ stderr: '', stdout: '' });
  expect(t.code).toBe(0);
}

async function datasetNames(): Promise<string[]> {
  const sets = await project.client.datasetClient.listDatasets(project.credentials.organizationId);
  return sets
    .map((d) => d.name)
    .filter((n) => n.startsWith('ff-') || n.startsWith('tf-'))
    .sort();
}

async function machineIds(): Promise<Record<string, string>> {
  const machines = await project.client.appClient.listMachines(project.credentials.locationId);
  return Object.fromEntries(machines.filter((m) => m.name.startsWith('ff-') || m.name.startsWith('tf-')).map((m) => [m.name, m.id]));
}

test('both paths plan, apply and refuse the same for every meta-argument', async () => {
  const init = await (async () => {
    synth(tfOut, 'tf-', V1);
    return tf('init', '-input=false', '-no-color');
  })();
  expect(init.stderr).toBe('');
  expect(init.code).toBe(0);

  // Instances addressed as Terraform does; the same creates on both paths.
  const first = await both(V1);
  expect(first.fleetform).toEqual({
    'fleetform_dataset.kept': 'create',
    'fleetform_dataset.sets["ff-a"]': 'create',
    'fleetform_dataset.sets["ff-b"]': 'create',
    'fleetform_dataset.swapped': 'create',
    'fleetform_dataset.trigger': 'create',
    'fleetform_machine.arm[0]': 'create',
    'fleetform_machine.arm[1]': 'create',
    'fleetform_machine.follower': 'create',
  });
  expect(Object.keys(first.terraform).map((a) => a.replace('tf-', 'ff-'))).toEqual(Object.keys(first.fleetform).sort());
  await applyBoth();
  expect(await datasetNames()).toEqual([
    'ff-a',
    'ff-b',
    'ff-kept',
    'ff-swap-1',
    'ff-trigger-1',
    'tf-a',
    'tf-b',
    'tf-kept',
    'tf-swap-1',
    'tf-trigger-1',
  ]);
  expect(Object.keys(await machineIds()).sort()).toEqual([
    'ff-arm-0-one',
    'ff-arm-1-one',
    'ff-follower',
    'tf-arm-0-one',
    'tf-arm-1-one',
    'tf-follower',
  ]);

  // ignore_changes: a new name in code changes nothing on either path.
  const ignored = await both({ ...V1, armSuffix: 'two' });
  expect(ignored).toEqual({ fleetform: {}, terraform: {} });

  // create_before_destroy and replace_triggered_by: the same replaces, in the same order.
  const ids = await machineIds();
  const replaced = await both({ ...V1, triggerName: 'trigger-2', swappedName: 'swap-2' });
  expect(replaced.fleetform).toEqual({
    'fleetform_dataset.swapped': 'create,delete',
    'fleetform_dataset.trigger': 'delete,create',
    'fleetform_machine.follower': 'delete,create',
  });
  expect(replaced.terraform).toEqual(replaced.fleetform);
  await applyBoth();
  const after = await machineIds();
  expect(after['ff-follower']).not.toBe(ids['ff-follower']);
  expect(after['tf-follower']).not.toBe(ids['tf-follower']);
  expect(after['ff-arm-0-one']).toBe(ids['ff-arm-0-one']);
  expect(await datasetNames()).toEqual([
    'ff-a',
    'ff-b',
    'ff-kept',
    'ff-swap-2',
    'ff-trigger-2',
    'tf-a',
    'tf-b',
    'tf-kept',
    'tf-swap-2',
    'tf-trigger-2',
  ]);

  // prevent_destroy: both refuse a replace of the protected dataset, naming it, before any call.
  const v3 = { ...V1, triggerName: 'trigger-2', swappedName: 'swap-2', keptName: 'kept-renamed' };
  synth(ffOut, 'ff-', v3);
  synth(tfOut, 'tf-', v3);
  const ffRefusal = await project.run('apply', '--auto-approve');
  expect(ffRefusal.code).not.toBe(0);
  expect(ffRefusal.stdout + ffRefusal.stderr).toContain('fleetform_dataset.kept has lifecycle.prevent_destroy set');
  const tfRefusal = await tf('apply', '-input=false', '-no-color', '-auto-approve');
  expect(tfRefusal.code).not.toBe(0);
  expect(tfRefusal.stderr).toContain('Instance cannot be destroyed');
  expect(tfRefusal.stderr).toContain('fleetform_dataset.kept');
  expect(await datasetNames()).toContain('ff-kept');

  // count: one fewer instance deletes the last on both paths.
  const fewer = await both({ ...V1, triggerName: 'trigger-2', swappedName: 'swap-2', arms: 1 });
  expect(fewer.fleetform).toEqual({ 'fleetform_machine.arm[1]': 'delete' });
  expect(fewer.terraform).toEqual(fewer.fleetform);
  await applyBoth();
  expect(Object.keys(await machineIds()).sort()).toEqual(['ff-arm-0-one', 'ff-follower', 'tf-arm-0-one', 'tf-follower']);
  await fs.rm(path.join(tfDir(), 'tfplan'), { force: true });
});
