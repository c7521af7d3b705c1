/**
 * The connection opens while the app synthesizes when its target can be guessed (the
 * project's embedded emulator folder exists, or FLEETFORM_ENDPOINT is set); a stack naming
 * another endpoint still gets that endpoint.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startEmulator, type RunningEmulator } from '../../src/emulator';

const ROOT = resolve(__dirname, '../..');
const BIN = join(ROOT, 'bin/fleetform.js');
const SRC = join(ROOT, 'src');

let dir: string;
let outside: RunningEmulator;

function fleetform(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const base: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const k of ['FLEETFORM_ENDPOINT', 'FLEETFORM_API_KEY', 'FLEETFORM_API_KEY_ID', 'FLEETFORM_REPORT_FILE', 'CDKTF_OUTDIR'])
    delete base[k];
  return new Promise((done) => {
    execFile(process.execPath, [BIN, ...args], { cwd: dir, env: { ...base, ...env } }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ff-early-'));
  outside = await startEmulator({ dataDir: join(dir, 'outside'), port: 0 });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'npx tsx main.ts' }));
  writeFileSync(
    join(dir, 'main.ts'),
    [
      "import { App, TerraformStack } from 'cdktf';",
      `import { FleetProvider, Machine } from ${JSON.stringify(SRC)};`,
      'const app = new App();',
      "const stack = new TerraformStack(app, 'lab');",
      "new FleetProvider(stack, 'cloud', process.env.LAB_ENDPOINT ? { endpoint: process.env.LAB_ENDPOINT } : {});",
      "new Machine(stack, 'bench-1');",
      'app.synth();',
    ].join('\n'),
  );
}, 60_000);

afterAll(async () => {
  await outside?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('the embedded emulator guessed from its folder serves the plan; a stack naming an endpoint gets that one', async () => {
  const first = await fleetform({}, 'apply', '--auto-approve');
  expect(first.stderr).toBe('');
  expect(first.stdout).toContain('(the embedded emulator)');
  expect(first.stdout).toContain('1 added');

  // The folder exists now: the next plan opens the embedded emulator while the app runs.
  const again = await fleetform({}, 'plan', '--detailed-exitcode');
  expect(again.stdout).toContain('(the embedded emulator)');
  expect(again.code).toBe(0);

  // The stack names another service: the guess is dropped and that service is planned against.
  const { apiKey, apiKeyId } = outside.credentials;
  const elsewhere = await fleetform(
    { LAB_ENDPOINT: outside.url, FLEETFORM_API_KEY: apiKey, FLEETFORM_API_KEY_ID: apiKeyId },
    'plan',
    '--detailed-exitcode',
  );
  expect(elsewhere.stdout).toContain(`Service: ${outside.url}\n`);
  expect(elsewhere.stdout).not.toContain('embedded emulator');
  expect(elsewhere.code).toBe(2);
}, 120_000);

test('FLEETFORM_ENDPOINT without a key fails after the app ran, naming the missing variable', async () => {
  const r = await fleetform({ FLEETFORM_ENDPOINT: outside.url }, 'plan');
  expect(r.code).toBe(1);
  expect(r.stderr).toContain('FLEETFORM_ENDPOINT is set but FLEETFORM_API_KEY and FLEETFORM_API_KEY_ID are not');
  expect(r.stderr).not.toMatch(/\n\s+at /);
}, 60_000);
