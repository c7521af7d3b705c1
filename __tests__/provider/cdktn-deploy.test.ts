/**
 * The example stacks as a CDK Terrain project: their imports of `cdktf` and `fleetform`
 * made `cdktn` and `fleetform/cdktn` (all a project changes to move), then through the
 * cdktn-cli from the registry: `cdktn deploy` creates the fleet on the embedded emulator
 * through the provider, `cdktn diff` finds nothing to do, a one-line change reads as
 * Terraform's key-by-key JSON diff, `cdktn destroy` leaves nothing on the service; then
 * `fleetform apply` manages the same fleet. cdktn-cli needs Node >= 22.19: it runs on the
 * Node 22 of the `node` devDependency (node_modules/node/bin/node); the app, Terraform's
 * provider and fleetform run on the machine's Node. Needs `npm run build` (the project
 * imports this checkout's dist/ through its package exports).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { commandFailure, machinesOnService, requireTerraform, run, terraformHome } from './terraform-cli';

jest.setTimeout(400_000);

const ROOT = path.resolve(__dirname, '../..');
const NODE22 = path.join(ROOT, 'node_modules', 'node', 'bin', 'node');
const CDKTN_CLI = path.join(ROOT, 'node_modules', 'cdktn-cli', 'bin', 'cdktn');
const FLEETFORM = path.join(ROOT, 'bin', 'fleetform.js');

let dir: string;
let env: NodeJS.ProcessEnv;

/** Node 22 and the cdktn-cli of the dev tree: missing, the suite fails saying how to get them. */
function requireCdktnCli(): void {
  const missing = [NODE22, CDKTN_CLI, path.join(ROOT, 'node_modules', 'cdktn', 'package.json'), path.join(ROOT, 'dist', 'cdktn.js')].filter(
    (f) => !existsSync(f),
  );
  if (missing.length > 0)
    throw new Error(`missing ${missing.join(', ')}: run \`npm install\` (it installs Node 22, cdktn and cdktn-cli and builds dist/)`);
  // Linked there, npm scripts (and so jest and its children) would run on Node 22.
  if (existsSync(path.join(ROOT, 'node_modules', '.bin', 'node')))
    throw new Error('node_modules/.bin/node is there: run `npm install` (its prepare step removes it)');
  const version = spawnSync(NODE22, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const [major, minor] = version.replace(/^v/, '').split('.').map(Number);
  if (!(major === 22 && (minor as number) >= 19))
    throw new Error(`${NODE22} is ${version || 'not runnable'}; cdktn-cli needs Node >= 22.19: run \`npm install\``);
}

/** A file of the example with its CDK imports moved to CDK Terrain; fails if it had none to move. */
function toCdktn(source: string, file: string): string {
  const moved = source.replace(/from 'cdktf'/g, "from 'cdktn'").replace(/from 'fleetform'/g, "from 'fleetform/cdktn'");
  if (/'cdktf'|from 'fleetform'/.test(moved)) throw new Error(`${file} still imports cdktf or fleetform`);
  return moved;
}

/** A cdktn project of the example stacks, using this checkout as its `fleetform` package. */
async function exampleProject(): Promise<string> {
  const project = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-cdktn-'));
  for (const entry of ['stacks', 'main.ts', 'cdktf.json', 'tsconfig.json'])
    await fs.cp(path.join(ROOT, entry), path.join(project, entry), { recursive: true });
  let moved = 0;
  for (const file of ['main.ts', ...(await fs.readdir(path.join(project, 'stacks'))).map((f) => path.join('stacks', f))]) {
    const at = path.join(project, file);
    const source = await fs.readFile(at, 'utf8');
    if (!/from '(cdktf|fleetform)'/.test(source)) continue;
    await fs.writeFile(at, toCdktn(source, file));
    moved += 1;
  }
  expect(moved).toBeGreaterThanOrEqual(4);
  await fs.mkdir(path.join(project, 'node_modules'));
  // No cdktf in this project: the fleetform/cdktn entry must not need it.
  for (const m of ['cdktn', 'constructs', 'tsx'])
    await fs.symlink(path.join(ROOT, 'node_modules', m), path.join(project, 'node_modules', m));
  await fs.symlink(ROOT, path.join(project, 'node_modules', 'fleetform'));
  await fs.writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'fleet-app', private: true }));
  return project;
}

const plain = (text: string) => stripVTControlCharacters(text);
const cdktn = async (...args: string[]) => {
  const r = await run(NODE22, [CDKTN_CLI, ...args], dir, env);
  return { ...r, stdout: plain(r.stdout), stderr: plain(r.stderr) };
};
const failure = commandFailure;

beforeAll(async () => {
  requireTerraform();
  requireCdktnCli();
  dir = await exampleProject();
  env = await terraformHome(dir, {});
  for (const k of [
    'FLEETFORM_ENDPOINT',
    'FLEETFORM_API_KEY',
    'FLEETFORM_API_KEY_ID',
    'FLEETFORM_ORGANIZATION_ID',
    'FLEETFORM_LOCATION_ID',
    'NODE_OPTIONS',
  ])
    delete env[k];
  env.CI = '1';
  env.FORCE_COLOR = '0';
});

afterAll(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

test('cdktn deploy, diff, a one-line change, destroy; then fleetform apply manages the same project', async () => {
  const deploy = await cdktn('deploy', '*', '--auto-approve', '--skip-provider-lock');
  expect(failure(deploy)).toEqual({ code: 0, failure: '' });
  expect(deploy.stdout).toContain('Apply complete! Resources: 7 added, 0 changed, 0 destroyed.');
  expect(deploy.stdout).toContain('Apply complete! Resources: 3 added, 0 changed, 0 destroyed.');
  expect(await machinesOnService(dir)).toEqual(['inspector-1', 'packer-1', 'picker-1', 'picker-2', 'picker-3']);

  for (const stack of ['warehouse', 'training']) {
    const diff = await cdktn('diff', stack, '--skip-provider-lock');
    expect(failure(diff)).toEqual({ code: 0, failure: '' });
    expect(diff.stdout).toContain('found no differences, so no changes are needed');
  }

  const source = path.join(dir, 'stacks', 'warehouse.ts');
  await fs.writeFile(source, (await fs.readFile(source, 'utf8')).replace('confidence_threshold: 0.6', 'confidence_threshold: 0.7'));
  const changed = await cdktn('diff', 'warehouse', '--skip-provider-lock');
  expect(changed.stdout).toContain('# fleetform_machine.inspector-1 (inspector-1) will be updated in-place');
  expect(changed.stdout).toMatch(/confidence_threshold = 0\.6 -> 0\.7/);
  expect(changed.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');

  const destroy = await cdktn('destroy', '*', '--auto-approve', '--skip-provider-lock');
  expect(failure(destroy)).toEqual({ code: 0, failure: '' });
  expect(destroy.stdout).toContain('Destroy complete! Resources: 7 destroyed.');
  expect(await machinesOnService(dir)).toEqual([]);

  // A model version is never reused, even by canceled jobs: the training jobs go on at version 2.
  const training = path.join(dir, 'stacks', 'training.ts');
  const jobs = await fs.readFile(training, 'utf8');
  expect(jobs.match(/modelVersion: '1'/g)).toHaveLength(2);
  await fs.writeFile(training, jobs.replace(/modelVersion: '1'/g, "modelVersion: '2'"));
  const apply = await run(process.execPath, [FLEETFORM, 'apply', '--auto-approve'], dir, env);
  expect(failure(apply)).toEqual({ code: 0, failure: '' });
  expect(apply.stdout).toMatch(/10 added, 0 changed, 0 destroyed/);
  const again = await run(process.execPath, [FLEETFORM, 'plan', '--detailed-exitcode'], dir, env);
  expect(failure(again)).toEqual({ code: 0, failure: '' });
  expect(again.stdout).toContain('No changes');
});
