/**
 * The connection opens while the app synthesizes when its target can be guessed (the
 * project's embedded emulator folder exists, or FLEETFORM_ENDPOINT is set); a stack naming
 * another endpoint gets that endpoint when the operator lets the app choose.
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
  // The app reads LAB_ENDPOINT: the project asks for it (an app gets only what it needs to run and what its project names).
  writeFileSync(
    join(dir, 'cdktf.json'),
    JSON.stringify({ language: 'typescript', app: 'npx tsx main.ts', fleetform: { passEnv: ['LAB_ENDPOINT'] } }),
  );
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
    { LAB_ENDPOINT: outside.url, FLEETFORM_API_KEY: apiKey, FLEETFORM_API_KEY_ID: apiKeyId, FLEETFORM_ALLOW_APP_ENDPOINT: '1' },
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

test('FLEETFORM_ENDPOINT without http:// is refused naming the variable and the URL it means, not the client library', async () => {
  const port = new URL(outside.url).port;
  const { apiKey, apiKeyId } = outside.credentials;
  const r = await fleetform({ FLEETFORM_ENDPOINT: `127.0.0.1:${port}`, FLEETFORM_API_KEY: apiKey, FLEETFORM_API_KEY_ID: apiKeyId }, 'plan');
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`FLEETFORM_ENDPOINT: "127.0.0.1:${port}" has no http:// or https:// in front`);
  expect(r.stderr).toContain(`hint: write it as http://127.0.0.1:${port} (http for an emulator on this machine)`);
  expect(r.stderr).not.toContain('createServiceClient');
  expect(r.stderr).not.toContain(apiKey);
}, 60_000);

test('a stack naming an endpoint the operator did not pin is refused before any connection, naming the provider block and the fix', async () => {
  const net = await import('node:net');
  let connections = 0;
  const listener = net.createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const address = listener.address() as import('node:net').AddressInfo;
  const elsewhere = `http://127.0.0.1:${address.port}`;
  try {
    const { apiKey, apiKeyId } = outside.credentials;
    const keys = { FLEETFORM_API_KEY: apiKey, FLEETFORM_API_KEY_ID: apiKeyId };
    const unpinned = await fleetform({ LAB_ENDPOINT: elsewhere, ...keys }, 'plan');
    expect(unpinned.code).toBe(1);
    expect(unpinned.stderr).toContain(`the FleetProvider of stack lab names the endpoint ${elsewhere}, and no endpoint is pinned`);
    expect(unpinned.stderr).toContain(`set FLEETFORM_ENDPOINT=${elsewhere}`);
    const pinned = await fleetform({ LAB_ENDPOINT: elsewhere, FLEETFORM_ENDPOINT: outside.url, ...keys }, 'plan');
    expect(pinned.code).toBe(1);
    expect(pinned.stderr).toContain(`but FLEETFORM_ENDPOINT pins ${outside.url}`);
    expect(pinned.stderr).toContain('--allow-app-endpoint');
    expect(connections).toBe(0);
  } finally {
    await new Promise<void>((resolve) => listener.close(() => resolve()));
  }
}, 120_000);
