/**
 * The example stacks through the cdktf-cli from the registry: `cdktf deploy` creates the
 * fleet on the embedded emulator through the provider, `cdktf diff` finds nothing to do,
 * a one-line change reads as Terraform's key-by-key JSON diff, `cdktf destroy` leaves
 * no machine on the service, and the next `cdktf deploy` takes the kept training jobs back.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { commandFailure, machinesOnService, requireTerraform, run, terraformHome } from './terraform-cli';

jest.setTimeout(400_000);

const ROOT = path.resolve(__dirname, '../..');
const CDKTF = path.join(ROOT, 'node_modules', '.bin', 'cdktf');

let dir: string;
let env: NodeJS.ProcessEnv;

/** A CDKTF project of the example stacks, using this checkout as its `fleetform` package. */
async function exampleProject(): Promise<string> {
  const project = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-cdktf-'));
  for (const entry of ['stacks', 'main.ts', 'cdktf.json', 'tsconfig.json'])
    await fs.cp(path.join(ROOT, entry), path.join(project, entry), { recursive: true });
  await fs.mkdir(path.join(project, 'node_modules'));
  for (const m of ['cdktf', 'constructs', 'tsx'])
    await fs.symlink(path.join(ROOT, 'node_modules', m), path.join(project, 'node_modules', m));
  await fs.symlink(ROOT, path.join(project, 'node_modules', 'fleetform'));
  await fs.writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'fleet-app', private: true }));
  return project;
}

const plain = (text: string) => stripVTControlCharacters(text);
const cdktf = async (...args: string[]) => {
  const r = await run(CDKTF, args, dir, env);
  return { ...r, stdout: plain(r.stdout), stderr: plain(r.stderr) };
};

beforeAll(async () => {
  requireTerraform();
  dir = await exampleProject();
  env = await terraformHome(dir, {});
  for (const k of ['FLEETFORM_ENDPOINT', 'FLEETFORM_API_KEY', 'FLEETFORM_API_KEY_ID', 'FLEETFORM_ORGANIZATION_ID', 'FLEETFORM_LOCATION_ID'])
    delete env[k];
  env.CI = '1';
  env.FORCE_COLOR = '0';
});

afterAll(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

test('cdktf deploy, diff, a one-line change, destroy, deploy again', async () => {
  const deploy = await cdktf('deploy', '*', '--auto-approve', '--skip-provider-lock');
  expect(commandFailure(deploy)).toEqual({ code: 0, failure: '' });
  expect(deploy.stdout).toContain('Apply complete! Resources: 7 added, 0 changed, 0 destroyed.');
  expect(deploy.stdout).toContain('Apply complete! Resources: 3 added, 0 changed, 0 destroyed.');
  expect(await machinesOnService(dir)).toEqual(['inspector-1', 'packer-1', 'picker-1', 'picker-2', 'picker-3']);

  for (const stack of ['warehouse', 'training']) {
    const diff = await cdktf('diff', stack, '--skip-provider-lock');
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain('found no differences, so no changes are needed');
  }

  const source = path.join(dir, 'stacks', 'warehouse.ts');
  await fs.writeFile(source, (await fs.readFile(source, 'utf8')).replace('confidence_threshold: 0.6', 'confidence_threshold: 0.7'));
  const changed = await cdktf('diff', 'warehouse', '--skip-provider-lock');
  expect(changed.stdout).toContain('# fleetform_machine.inspector-1 (inspector-1) will be updated in-place');
  expect(changed.stdout).toContain('config      = jsonencode(');
  expect(changed.stdout).toMatch(/confidence_threshold = 0\.6 -> 0\.7/);
  expect(changed.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');

  const destroy = await cdktf('destroy', '*', '--auto-approve', '--skip-provider-lock');
  expect(destroy.code).toBe(0);
  expect(destroy.stdout).toContain('Destroy complete! Resources: 7 destroyed.');
  expect(await machinesOnService(dir)).toEqual([]);

  // As the walk-through has it: the same deploy again, the kept training jobs taken back, not trained again.
  const again = await cdktf('deploy', '*', '--auto-approve', '--skip-provider-lock');
  expect(commandFailure(again)).toEqual({ code: 0, failure: '' });
  expect(again.stdout).toContain('an earlier destroy kept this object (retain_on_delete; id ');
  expect(again.stdout).toContain('Apply complete! Resources: 7 added, 0 changed, 0 destroyed.');
  expect(again.stdout).toContain('Apply complete! Resources: 3 added, 0 changed, 0 destroyed.');
  for (const stack of ['warehouse', 'training']) {
    const diff = await cdktf('diff', stack, '--skip-provider-lock');
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain('found no differences, so no changes are needed');
  }
});
