/** `fleetform emulator ...`: serve as a real process; the control commands against it and embedded. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { JsonObject } from '@bufbuild/protobuf';
import { createServiceClient } from '../../src/api/client';
import { loadServices } from '../../src/api/services';
import { main } from '../../src/cli/main';
import { readCredentials, type EmulatorCredentials, type RunningEmulator } from '../../src/emulator';
import { scratchDirs } from './fixture';
import { clientOf, newMachine, sensorsConfig } from './helpers';

const BIN = path.join(__dirname, '..', '..', 'bin', 'fleetform.js');
const newDir = scratchDirs();

interface Served {
  child: ChildProcessWithoutNullStreams;
  url: string;
  stdout: () => string;
  exit: Promise<number | null>;
}

/** Spawns `fleetform emulator serve` and resolves once it prints its listening line. */
function serve(args: string[]): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'emulator', 'serve', ...args], { env: { ...process.env, FORCE_COLOR: '0' } });
  let out = '';
  let err = '';
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(out);
      if (m?.[1]) resolve({ child, url: m[1], stdout: () => out, exit });
    });
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    void exit.then((code) => reject(new Error(`serve exited with ${code}: ${err}`)));
  });
}

/** Whether the served process prints a line matching `pattern` before it exits or 10 s pass. */
function printed(served: Served, pattern: RegExp): Promise<boolean> {
  return new Promise((resolve) => {
    const check = (): void => {
      if (pattern.test(served.stdout())) done(true);
    };
    const timer = setTimeout(() => done(false), 10_000);
    const done = (value: boolean): void => {
      clearTimeout(timer);
      served.child.stdout.off('data', check);
      resolve(value);
    };
    served.child.stdout.on('data', check);
    void served.exit.then(() => done(pattern.test(served.stdout())));
    check();
  });
}

/** Runs the CLI in this process with the given environment; returns exit code and output. */
async function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  let stdout = '';
  let stderr = '';
  const out = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((stdout += String(chunk)), true));
  const errSpy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true));
  try {
    const code = await main(['node', 'fleetform', ...args]);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    errSpy.mockRestore();
    process.exitCode = undefined;
    for (const k of Object.keys(env)) delete process.env[k];
    Object.assign(process.env, saved);
  }
}

describe('emulator serve', () => {
  let served: Served;
  let dataDir: string;
  let creds: EmulatorCredentials;
  let env: Record<string, string>;
  // Each test serves an emulator of its own: none depends on what another published or stopped.
  beforeEach(async () => {
    dataDir = newDir();
    // Jobs move only when `emulator jobs advance` moves them.
    served = await serve(['--port', '0', '--data', dataDir, '--clock', 'frozen']);
    const c = readCredentials(dataDir);
    if (!c) throw new Error('no credentials.json');
    creds = c;
    env = { FLEETFORM_ENDPOINT: served.url, FLEETFORM_API_KEY: creds.apiKey, FLEETFORM_API_KEY_ID: creds.apiKeyId };
  });
  afterEach(async () => {
    if (served.child.exitCode === null) {
      served.child.kill('SIGKILL');
      await served.exit;
    }
  });

  test('prints the listening line and writes credentials.json with mode 0600', () => {
    expect(served.stdout().split('\n')[0]).toBe(`listening on ${served.url}`);
    expect(fs.statSync(path.join(dataDir, 'credentials.json')).mode & 0o777).toBe(0o600);
    expect(Object.keys(creds).sort()).toEqual(['apiKey', 'apiKeyId', 'datasetId', 'locationId', 'organizationId']);
  });

  test('publish module moves admitting machines and reports them; status shows the module card', async () => {
    const services = await loadServices();
    const emulator = { url: served.url, credentials: creds } as RunningEmulator;
    const app = await clientOf(emulator, services.app);
    const m = await newMachine(app, creds.locationId, 'cli-rover');
    const config = sensorsConfig([
      { name: 'follows', version: '~1.2' },
      { name: 'pinned', version: '1.2.3' },
    ]) as JsonObject;
    await app.updateRobotPart({ id: m.partId, name: m.partName, robotConfig: services.sdk.Struct.fromJson(config) });

    const published = await cli(['emulator', 'publish', 'module', 'acme:sensors', '1.2.6'], env);
    expect(published).toMatchObject({ code: 0, stderr: '' });
    expect(published.stdout).toBe('published acme:sensors 1.2.6\n  cli-rover follows: 1.2.5 -> 1.2.6 (restart #1)\n');

    const status = await cli(['emulator', 'status'], env);
    expect(status.code).toBe(0);
    const lines = status.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^MACHINE\s+PART\s+MODULE\s+MODULE ID\s+POLICY\s+DEPLOYED\s+REGISTRY LATEST\s+RESTARTS$/);
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/))).toEqual([
      ['cli-rover', 'cli-rover-main', 'follows', 'acme:sensors', '~1.2', '1.2.6', '1.3.0 (prerelease 2.0.0-rc.1)', '1'],
      ['cli-rover', 'cli-rover-main', 'pinned', 'acme:sensors', '1.2.3', '1.2.3', '1.3.0 (prerelease 2.0.0-rc.1)', '0'],
    ]);
    const json = await cli(['emulator', 'status', '--json'], env);
    expect((JSON.parse(json.stdout) as { deployedVersion: string }[]).map((c) => c.deployedVersion)).toEqual(['1.2.6', '1.2.3']);
  });

  test('publish module with --model, publish script, and errors as `error: ...` with exit 1', async () => {
    const withModel = await cli(
      ['emulator', 'publish', 'module', 'acme:lidar', '0.1.0', '--model', 'rdk:component:camera=acme:lidar:scan'],
      env,
    );
    expect(withModel.stdout).toContain('published acme:lidar 0.1.0');
    const script = await cli(['emulator', 'publish', 'script', 'acme:trainer', '0.5.0'], env);
    expect(script).toMatchObject({ code: 0, stdout: 'published training script acme:trainer 0.5.0\n' });
    expect((await cli(['emulator', 'publish', 'module', 'acme:sensors', '1.2.6'], env)).code).toBe(0);
    const dup = await cli(['emulator', 'publish', 'module', 'acme:sensors', '1.2.6'], env);
    expect(dup.code).toBe(1);
    expect(dup.stderr).toBe('error: EmulatorService.PublishModuleVersion: ALREADY_EXISTS: module acme:sensors already has version 1.2.6\n');
    const badModel = await cli(['emulator', 'publish', 'module', 'acme:lidar', '0.2.0', '--model', 'oops'], env);
    expect(badModel.code).toBe(1);
    expect(badModel.stderr).toMatch(/^error: --model: takes api=model/);
  });

  test('jobs advance and fail', async () => {
    const services = await loadServices();
    const ml = await clientOf({ url: served.url, credentials: creds } as RunningEmulator, services.mlTraining);
    const { id } = await ml.submitTrainingJob({
      organizationId: creds.organizationId,
      datasetId: creds.datasetId,
      modelName: 'cli-model',
      modelVersion: '1',
      modelType: 3,
      tags: ['box'],
    });
    expect((await cli(['emulator', 'jobs', 'advance', id], env)).stdout).toBe(
      `${id}: TRAINING_STATUS_PENDING -> TRAINING_STATUS_IN_PROGRESS\n`,
    );
    const failed = await cli(['emulator', 'jobs', 'fail', id, '--message', 'GPU on fire'], env);
    expect(failed.stdout).toBe(`${id}: TRAINING_STATUS_IN_PROGRESS -> TRAINING_STATUS_FAILED\n`);
    expect((await ml.getTrainingJob({ id })).metadata?.errorStatus?.message).toBe('GPU on fire');
    const again = await cli(['emulator', 'jobs', 'advance', id], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('FAILED_PRECONDITION');
  });

  test('machine-faults replaces the faults in force; a misspelt one is refused naming the fix', async () => {
    const set = await cli(['emulator', 'machine-faults', 'machine=picker-3:offline', 'module=acme:sensors@1.3.0:crash:30%'], env);
    expect(set.stdout).toBe('machine faults: machine=picker-3:offline, module=acme:sensors@1.3.0:crash:30%\n');
    const bad = await cli(['emulator', 'machine-faults', 'machine=picker-3:ofline'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('expected the effect "offline"');
    expect(bad.stderr).toContain('machine=picker-3:offline');
    expect((await cli(['emulator', 'machine-faults'], env)).stdout).toBe('no machine faults\n');
  });

  test("sensor-reading sets what a machine's sensor reads; none clears it; bad JSON and an unknown machine are refused by name", async () => {
    const app = await clientOf({ url: served.url, credentials: creds } as RunningEmulator, (await loadServices()).app);
    await newMachine(app, creds.locationId, 'door-cell');
    const set = await cli(['emulator', 'sensor-reading', 'door-cell', 'rdk:component:sensor/door', '{"allowed": false}'], env);
    expect(set).toEqual({ code: 0, stdout: 'door-cell rdk:component:sensor/door reads {"allowed":false}\n', stderr: '' });
    expect((await cli(['emulator', 'sensor-reading', 'door-cell', 'door'], env)).stdout).toBe('door-cell door reads {}\n');
    const bad = await cli(['emulator', 'sensor-reading', 'door-cell', 'door', '{allowed}'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('readings: "{allowed}" is not a JSON object');
    const unknown = await cli(['emulator', 'sensor-reading', 'no-such-cell', 'door', '{}'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('NOT_FOUND: machine: no machine part of yours is named or has the id "no-such-cell"');
  });

  test("organization makes another organization's fragment: public and unlisted ones are read, private ones are not", async () => {
    const ours = await createServiceClient({
      serviceHost: served.url,
      credentials: { type: 'api-key', authEntity: creds.apiKeyId, payload: creds.apiKey },
    });
    try {
      const made = async (name: string, visibility: string) => {
        const config = JSON.stringify({ components: [{ name: 'arm', api: 'rdk:component:arm', model: 'rdk:builtin:fake' }] });
        const res = await cli(
          [
            'emulator',
            'organization',
            name,
            '--fragment',
            `${name}-rig`,
            '--visibility',
            visibility,
            '--fragment-config',
            config,
            '--json',
          ],
          env,
        );
        expect(res.stderr).toBe('');
        return JSON.parse(res.stdout) as { organizationId: string; fragmentId: string; visibility: string };
      };
      const shared = await made('Globex', 'public');
      const unlisted = await made('Initech', 'unlisted');
      const hidden = await made('Umbrella', 'private');
      expect(new Set([shared.organizationId, unlisted.organizationId, hidden.organizationId, creds.organizationId]).size).toBe(4);
      expect((await ours.appClient.getFragment(shared.fragmentId)).fragment).toMatchObject({ name: 'Globex-rig', visibility: 'public' });
      expect((await ours.appClient.getFragment(unlisted.fragmentId)).fragment).toMatchObject({ visibility: 'public_unlisted' });
      await expect(ours.appClient.getFragment(hidden.fragmentId)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      const listed = (await ours.appClient.listFragments(creds.organizationId, { showPublic: true })).map((f) => f.id);
      expect(listed).toContain(shared.fragmentId);
      expect(listed).not.toContain(unlisted.fragmentId);

      const text = await cli(['emulator', 'organization', 'Hooli', '--namespace', 'hooli'], env);
      expect(text.stdout).toMatch(/^organization Hooli \S+\n$/);
      const bad = await cli(['emulator', 'organization', 'Vandelay', '--fragment', 'x', '--visibility', 'secret'], env);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain('--visibility: "secret" is not a fragment visibility');
    } finally {
      await ours.close();
    }
  });

  test('clock: shown, stepped (jobs move with it), resumed', async () => {
    const shown = await cli(['emulator', 'clock'], env);
    expect(shown.stdout).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z frozen; training takes 1m0s\n$/);
    const at = Date.parse(shown.stdout.split(' ')[0] as string);
    const services = await loadServices();
    const ml = await clientOf({ url: served.url, credentials: creds } as RunningEmulator, services.mlTraining);
    const { id } = await ml.submitTrainingJob({
      organizationId: creds.organizationId,
      datasetId: creds.datasetId,
      modelName: 'clocked',
      modelVersion: '1',
      modelType: 3,
      tags: ['box'],
    });
    const stepped = await cli(['emulator', 'clock', 'step', '6s'], env);
    expect(stepped.stdout).toBe(`${new Date(at + 6000).toISOString()} frozen; training takes 1m0s\n`);
    expect((await ml.getTrainingJob({ id })).metadata?.status).toBe(2);
    await cli(['emulator', 'clock', 'step', '54s'], env);
    expect((await ml.getTrainingJob({ id })).metadata?.status).toBe(3);
    const bad = await cli(['emulator', 'clock', 'step', 'soon'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error: <duration>: must be a duration like 300ms, 45s or 2m/);
    expect((await cli(['emulator', 'clock', 'resume'], env)).stdout).toMatch(/ running; training takes 1m0s\n$/);
    expect((await cli(['emulator', 'clock', 'freeze'], env)).stdout).toMatch(/ frozen; /);
  });

  test('SIGTERM shuts down cleanly with exit code 0', async () => {
    served.child.kill('SIGTERM');
    expect(await served.exit).toBe(0);
    expect(served.stdout()).toMatch(/stopped \(SIGTERM\)\n$/);
  });
});

test('serve restarts on the same data, and SIGINT stops it', async () => {
  const dataDir = newDir();
  const first = await serve(['--port', '0', '--data', dataDir, '--host', '127.0.0.1']);
  const creds = readCredentials(dataDir);
  first.child.kill('SIGINT');
  expect(await first.exit).toBe(0);
  expect(first.stdout()).toMatch(/stopped \(SIGINT\)\n$/);
  const second = await serve(['--port', '0', '--data', dataDir]);
  expect(readCredentials(dataDir)).toEqual(creds);
  second.child.kill('SIGTERM');
  expect(await second.exit).toBe(0);
});

test('serve takes a training duration and a starting clock', async () => {
  const dataDir = newDir();
  const served = await serve(['--port', '0', '--data', dataDir, '--training-duration', '250ms', '--clock', 'frozen']);
  const c = readCredentials(dataDir);
  if (!c) throw new Error('no credentials.json');
  const env = { FLEETFORM_ENDPOINT: served.url, FLEETFORM_API_KEY: c.apiKey, FLEETFORM_API_KEY_ID: c.apiKeyId };
  expect((await cli(['emulator', 'clock'], env)).stdout).toMatch(/ frozen; training takes 250ms\n$/);
  served.child.kill('SIGTERM');
  expect(await served.exit).toBe(0);
  expect((await cli(['emulator', 'serve', '--port', '0', '--data', dataDir, '--training-duration', 'long'], {})).stderr).toMatch(
    /^error: --training-duration: must be a duration like 300ms/,
  );
  expect((await cli(['emulator', 'serve', '--port', '0', '--data', dataDir, '--clock', 'stopped'], {})).stderr).toMatch(
    /^error: --clock: must be frozen or running/,
  );
});

test('serve rejects a bad port', async () => {
  const res = await cli(['emulator', 'serve', '--port', 'eighty', '--data', newDir()], {});
  expect(res.code).toBe(1);
  expect(res.stderr).toMatch(/^error: --port: must be a whole number from 0 to 65535/);
});

test('serve rejects a misspelt machine fault, naming the fix', async () => {
  const res = await cli(['emulator', 'serve', '--port', '0', '--data', newDir(), '--machine-fault', 'module=acme:sensors@1.3.0:crsh'], {});
  expect(res.code).toBe(1);
  expect(res.stderr).toMatch(/--machine-fault: machine fault "module=acme:sensors@1.3.0:crsh": expected the effect "crash"/);
  const share = await cli(['emulator', 'serve', '--port', '0', '--data', newDir(), '--machine-fault', 'machine=picker-3:offline:130%'], {});
  expect(share.code).toBe(1);
  expect(share.stderr).toMatch(/not a whole percent from 1 to 100/);
});

test('serve runs simulated machines as its flags say: interval, start times, a crashing module version', async () => {
  const dataDir = newDir();
  const served = await serve([
    '--port',
    '0',
    '--data',
    dataDir,
    '--check-in-interval',
    '50ms',
    '--module-start-time',
    '0',
    '--resource-configure-time',
    '0',
    '--machine-fault',
    'module=acme:sensors@1.3.0:crash',
  ]);
  try {
    expect(await printed(served, /simulated machines check in every 50 ms \(faults: module=acme:sensors@1\.3\.0:crash\)/)).toBe(true);
    const creds = readCredentials(dataDir);
    if (!creds) throw new Error('no credentials.json');
    const app = await clientOf({ url: served.url, credentials: creds } as RunningEmulator, (await loadServices()).app);
    const { partId, partName } = await newMachine(app, creds.locationId, 'crashing');
    const { Struct } = (await loadServices()).sdk;
    await app.updateRobotPart({
      id: partId,
      name: partName,
      robotConfig: Struct.fromJson(sensorsConfig([{ name: 'sensors', version: '1.3.0' }]) as JsonObject),
    });
    const until = Date.now() + 10_000;
    let messages: string[] = [];
    while (!messages.some((m) => m.includes('crashed')) && Date.now() < until) {
      messages = (await app.getRobotPartLogs({ id: partId, levels: ['error'] })).logs.map((l) => l.message);
    }
    expect(messages).toEqual(expect.arrayContaining([expect.stringMatching(/module sensors \(acme:sensors@1\.3\.0\) crashed/)]));
  } finally {
    served.child.kill('SIGTERM');
    await served.exit;
  }
});

test('serve --no-simulate says simulated machines are off', async () => {
  const dataDir = newDir();
  const served = await serve(['--port', '0', '--data', dataDir, '--no-simulate']);
  try {
    expect(await printed(served, /simulated machines are off/)).toBe(true);
  } finally {
    served.child.kill('SIGTERM');
    await served.exit;
  }
});

test('without FLEETFORM_ENDPOINT the controls use the embedded emulator in .fleetform/emulator', async () => {
  const cwd = newDir();
  const env = { ...process.env };
  delete env.FLEETFORM_ENDPOINT;
  const child = spawn(process.execPath, [BIN, 'emulator', 'publish', 'script', 'acme:trainer', '0.9.0'], { cwd, env });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  expect(code).toBe(0);
  expect(out).toBe('published training script acme:trainer 0.9.0\n');
  expect(fs.existsSync(path.join(cwd, '.fleetform', 'emulator', 'credentials.json'))).toBe(true);
});
