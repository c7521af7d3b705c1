/**
 * A secret value the app reads itself (Secret.fromValue): run by `fleetform plan|apply`, the
 * app hands it to the engine over a private pipe, the synthesized stack holds only
 * `{"from":"app","id":...}`, apply stores the value on the machine's config, and a changed
 * value is the next plan's change. The project's files (synthesized output, state, saved
 * plans), plans in text and JSON and everything the commands printed hold it in no form. A
 * saved plan is applied with the app run again; given only the synthesized output (no app
 * run), it stops naming the machine, the field and the fix. The app run by `cdktf synth`
 * (no channel) fails with the typed error and its hint.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { run } from '../provider/terraform-cli';
import { openEmulatorProject, type CliResult, type EmulatorProject } from './fleet-fixture';
import { searchFiles, searchTexts } from './secret-search';

jest.setTimeout(300_000);

const ROOT = path.resolve(__dirname, '../..');
const CDKTF = path.join(ROOT, 'node_modules', '.bin', 'cdktf');
const secret = (label: string): string => `s3cr3t-from-app-${label}-${randomBytes(9).toString('base64url')}`;
const VALUE = secret('one');
const NEXT_VALUE = secret('two');
const THIRD_VALUE = secret('three');

let p: EmulatorProject;
/** Where the app reads its secret: a folder outside the project (a vault, as far as the app knows). */
let vault: string;
const printed: Record<string, string> = {};

/** The app: reads the secret from the vault file and gives it to a module's env with Secret.fromValue. */
function appSource(vaultFile: string): string {
  return `
const fs = require('node:fs');
const { App, TerraformStack } = require(${JSON.stringify(path.join(ROOT, 'node_modules', 'cdktf'))});
const ff = require(${JSON.stringify(path.join(ROOT, 'dist', 'index.js'))});
const token = fs.readFileSync(${JSON.stringify(vaultFile)}, 'utf8').trim();
const app = new App();
const stack = new TerraformStack(app, 'fleet');
new ff.FleetProvider(stack, 'cloud', {});
const machine = new ff.Machine(stack, 'picker-1', { name: 'picker-1' });
const sensors = new ff.Module(machine, 'sensors', {
  moduleId: 'acme:sensors',
  version: '~1.2',
  env: { API_TOKEN: ff.Secret.fromValue(token), LOG_LEVEL: 'debug' },
});
new ff.ModularResource(machine, 'board', { name: 'board-1', api: 'rdk:component:board', model: sensors.model('pi-board') });
app.synth();
`;
}

beforeAll(async () => {
  p = await openEmulatorProject('ff-app-secret-');
  vault = await fs.mkdtemp(path.join(os.tmpdir(), 'ff-app-vault-'));
  const vaultFile = path.join(vault, 'token');
  await fs.writeFile(vaultFile, VALUE, { mode: 0o600 });
  await fs.writeFile(path.join(p.dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'node app.js' }));
  await fs.writeFile(path.join(p.dir, 'app.js'), appSource(vaultFile));
});

afterAll(async () => {
  await p?.close();
  if (vault) await fs.rm(vault, { recursive: true, force: true });
});

/** Runs `fleetform` in the project (which runs the app), keeping what it printed for the search. */
async function fleetform(label: string, ...args: string[]): Promise<CliResult> {
  const r = await p.runBare(...args);
  printed[`${label} stdout`] = r.stdout;
  printed[`${label} stderr`] = r.stderr;
  return r;
}

async function setValue(value: string): Promise<void> {
  await fs.writeFile(path.join(vault, 'token'), value);
}

async function moduleEnv(): Promise<Record<string, string> | undefined> {
  const partId = (await p.backend().read('fleet')).resources['fleetform_machine.picker-1']?.ids.part_id;
  if (!partId) throw new Error('no part of picker-1 in state');
  const config = JSON.parse(JSON.stringify((await p.client.appClient.getMachinePart(partId)).config)) as {
    modules: Array<{ env?: Record<string, string> }>;
  };
  return config.modules[0]?.env;
}

test('fleetform runs the app: the value goes to the machine and nowhere else; a new value is a change', async () => {
  const plan = await fleetform('plan', 'plan');
  expect(plan).toMatchObject({ code: 0, stderr: '' });
  expect(plan.stdout).toContain('API_TOKEN');
  const written = JSON.parse(await fs.readFile(path.join(p.outdir, 'stacks', 'fleet', 'cdk.tf.json'), 'utf8')) as {
    resource: { fleetform_machine: Record<string, { config: string; secrets?: unknown }> };
  };
  expect(written.resource.fleetform_machine['picker-1']?.secrets).toEqual({
    'modules.acme_sensors.env.API_TOKEN': { from: 'app', id: 'value-1' },
  });
  expect(written.resource.fleetform_machine['picker-1']?.config).not.toContain('API_TOKEN');
  expect((await fleetform('plan json', 'plan', '--json')).code).toBe(0);

  expect((await fleetform('apply', 'apply', '--auto-approve')).code).toBe(0);
  expect(await moduleEnv()).toEqual({ API_TOKEN: VALUE, LOG_LEVEL: 'debug' });
  expect((await fleetform('plan after apply', 'plan', '--detailed-exitcode')).code).toBe(0);

  await setValue(NEXT_VALUE);
  const changed = await fleetform('plan of a new value', 'plan', '--detailed-exitcode');
  expect(changed.code).toBe(2);
  expect(changed.stdout).toContain('API_TOKEN');
  expect(changed.stdout).toContain('(sensitive)');
  expect((await fleetform('plan json of a new value', 'plan', '--json')).code).toBe(0);
  expect((await fleetform('apply of a new value', 'apply', '--auto-approve')).code).toBe(0);
  expect((await moduleEnv())?.API_TOKEN).toBe(NEXT_VALUE);

  // A saved plan is applied as every apply is: the app runs again and hands the value over.
  await setValue(THIRD_VALUE);
  expect((await fleetform('saved plan', 'plan', '--out', 'third.plan')).code).toBe(0);
  expect(await fleetform('apply of the saved plan', 'apply', 'third.plan')).toMatchObject({ code: 0, stderr: '' });
  expect((await moduleEnv())?.API_TOKEN).toBe(THIRD_VALUE);

  // With no app run (its synthesized output given) it stops, naming the machine, the field and the fix.
  await setValue(NEXT_VALUE);
  expect((await fleetform('second saved plan', 'plan', '--out', 'back.plan')).code).toBe(0);
  const unrun = await fleetform('apply of the saved plan without the app', 'apply', 'back.plan', '--synth-out', 'cdktf.out');
  expect(unrun.code).not.toBe(0);
  const said = unrun.stdout + unrun.stderr;
  expect(said).toContain('machine picker-1 needs the secret modules.acme_sensors.env.API_TOKEN');
  expect(said).toContain('Secret.fromValue (value-1)');
  expect(said).toContain('without a saved plan or --synth-out');
  expect((await moduleEnv())?.API_TOKEN).toBe(THIRD_VALUE);

  const values = [VALUE, NEXT_VALUE, THIRD_VALUE];
  const files = await searchFiles(p.dir, values, ['emulator']);
  expect(files.files).toEqual(expect.arrayContaining(['cdktf.out/stacks/fleet/cdk.tf.json', 'third.plan', 'back.plan']));
  expect(files.files.some((f) => f.startsWith('.fleetform/state'))).toBe(true);
  expect(files.findings).toEqual([]);
  expect(searchTexts(printed, values)).toEqual([]);
});

test('run by cdktf synth (no channel), the app fails with the typed error and the references to use', async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, CI: '1', FORCE_COLOR: '0', CHECKPOINT_DISABLE: '1' };
  delete env.FLEETFORM_SECRET_CHANNEL_FD;
  const r = await run(CDKTF, ['synth', '--output', 'plain.out'], p.dir, env);
  expect(r.code).not.toBe(0);
  const said = r.stdout + r.stderr;
  expect(said).toContain('Secret.fromValue: the app is not run by fleetform');
  expect(said).toContain('Secret.fromEnv("NAME")');
  expect(searchTexts({ stdout: r.stdout, stderr: r.stderr }, [VALUE, NEXT_VALUE, THIRD_VALUE])).toEqual([]);
  expect((await searchFiles(p.dir, [VALUE, NEXT_VALUE, THIRD_VALUE], ['emulator'])).findings).toEqual([]);
});
