/**
 * Where the API key may go and what an app's environment holds: the endpoint chosen from
 * the pinned one and the app's, plain HTTP refused outside this machine before any
 * connection, the app's variables by the allow-list.
 */
import * as net from 'node:net';
import { createServiceClient } from '../../src/api/client';
import { checkKeyTransport, isLoopbackHost } from '../../src/api/client/service-client';
import { InputError } from '../../src/domain/errors';
import { appEnvironment, checkProjectPassEnv, passesToApp } from '../../src/cli/app-environment';
import { chosenEndpoint } from '../../src/cli/connection';
import { backoffMs, nextStreak } from '../../src/reconciler/backoff';

const settings = { app: 'node main.js', context: {}, terraformModules: [] };
const reporter = { preload: '/x/reporter.js', reportFile: '/x/report.json' };

describe('the endpoint the key goes to', () => {
  test('the pinned endpoint, or the app naming the same one', () => {
    expect(chosenEndpoint('https://fleet.example.com', undefined, false)).toBe('https://fleet.example.com');
    expect(chosenEndpoint('https://fleet.example.com', { endpoint: 'https://fleet.example.com:443/', stack: 's' }, false)).toBe(
      'https://fleet.example.com:443/',
    );
    expect(chosenEndpoint(undefined, undefined, false)).toBeUndefined();
  });

  test('an app naming another endpoint is refused, naming its provider block and the fix, unless allowed', () => {
    const app = { endpoint: 'http://127.0.0.1:18094', stack: 'fleet' };
    expect(() => chosenEndpoint('https://fleet.example.com', app, false)).toThrow(
      'the FleetProvider of stack fleet names the endpoint http://127.0.0.1:18094, but FLEETFORM_ENDPOINT pins https://fleet.example.com',
    );
    expect(() => chosenEndpoint(undefined, app, false)).toThrow('and no endpoint is pinned');
    try {
      chosenEndpoint(undefined, app, false);
    } catch (err) {
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).path).toBe('stack fleet: FleetProvider.endpoint');
      expect((err as InputError).hint).toContain('FLEETFORM_ENDPOINT=http://127.0.0.1:18094');
    }
    expect(chosenEndpoint('https://fleet.example.com', app, true)).toBe(app.endpoint);
  });
});

describe('plain HTTP', () => {
  test('loopback hosts are this machine, others are not', () => {
    for (const h of ['127.0.0.1', '127.8.9.10', 'localhost', '[::1]', 'LOCALHOST']) expect(isLoopbackHost(h)).toBe(true);
    for (const h of ['10.0.0.1', 'example.com', '128.0.0.1', 'localhost.example.com', '[::2]']) expect(isLoopbackHost(h)).toBe(false);
  });

  test('a key is refused over plain HTTP to another host; https and loopback pass', () => {
    expect(() => checkKeyTransport('http://fleet.example.com:8080')).toThrow('over plain HTTP to fleet.example.com:8080');
    expect(() => checkKeyTransport('https://fleet.example.com')).not.toThrow();
    expect(() => checkKeyTransport('http://127.0.0.1:8080')).not.toThrow();
    expect(() => checkKeyTransport('http://[::1]:8080')).not.toThrow();
  });

  test('the client refuses before connecting: a listener on a non-loopback name sees nothing', async () => {
    let connections = 0;
    const server = net.createServer((s) => {
      connections += 1;
      s.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    try {
      // 127.0.0.1.nip.io-like names resolve elsewhere; a name that is not loopback by its text is refused whatever it resolves to.
      await expect(
        createServiceClient({
          serviceHost: `http://127.0.0.1.example:${port}`,
          credentials: { type: 'api-key', authEntity: 'id', payload: 'key' },
        }),
      ).rejects.toThrow('over plain HTTP');
      expect(connections).toBe(0);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe("the app's environment", () => {
  const parent = {
    PATH: '/usr/bin',
    HOME: '/home/u',
    NODE_OPTIONS: '--enable-source-maps',
    npm_config_cache: '/c',
    CDKTF_LOG_LEVEL: 'warn',
    TF_LOG: 'info',
    TF_VAR_region: 'eu',
    TF_TOKEN_app_terraform_io: 'tf-token-value',
    NODE_AUTH_TOKEN: 'npm-token-value',
    FLEETFORM_API_KEY: 'the-api-key',
    FLEETFORM_API_KEY_ID: 'the-key-id',
    FLEETFORM_DASHBOARD_TOKEN: 'the-dashboard-token',
    FLEETFORM_GIT_TOKEN: 'the-git-token',
    AWS_SECRET_ACCESS_KEY: 'aws',
    STAGE: 'prod',
  };

  test('holds what an app needs to run, not fleetform credentials, other secrets, Terraform variables or unasked variables', () => {
    const env = appEnvironment(parent, settings, '/out', reporter, []);
    for (const k of ['PATH', 'HOME', 'npm_config_cache', 'CDKTF_LOG_LEVEL', 'TF_LOG'])
      expect(env[k]).toBe(parent[k as keyof typeof parent]);
    expect(env.NODE_OPTIONS).toContain('--enable-source-maps');
    for (const k of [
      'TF_VAR_region',
      'TF_TOKEN_app_terraform_io',
      'NODE_AUTH_TOKEN',
      'FLEETFORM_API_KEY',
      'FLEETFORM_API_KEY_ID',
      'FLEETFORM_DASHBOARD_TOKEN',
      'FLEETFORM_GIT_TOKEN',
      'AWS_SECRET_ACCESS_KEY',
      'STAGE',
    ])
      expect(env[k]).toBeUndefined();
    expect(env.CDKTF_OUTDIR).toBe('/out');
  });

  test("the project's cdktf.json and the operator ask for more; only the operator for fleetform's own", () => {
    const env = appEnvironment(parent, { ...settings, passEnv: ['STAGE'] }, '/out', reporter, ['FLEETFORM_API_KEY_ID']);
    expect(env.STAGE).toBe('prod');
    expect(env.FLEETFORM_API_KEY_ID).toBe('the-key-id');
    expect(env.FLEETFORM_API_KEY).toBeUndefined();
    expect(() => checkProjectPassEnv(['STAGE', 'FLEETFORM_API_KEY'], '/p/cdktf.json')).toThrow(
      'fleetform.passEnv asks for FLEETFORM_API_KEY',
    );
    expect(passesToApp('Path', new Set())).toBe(true);
  });
});

describe('backoff', () => {
  test('doubles from the base to the ceiling', () => {
    expect([1, 2, 3, 4, 5, 30].map((n) => backoffMs(n, 1000, 10_000))).toEqual([1000, 2000, 4000, 8000, 10_000, 10_000]);
  });

  test('a failure is announced once per cause and commit; a new commit starts again', () => {
    const wait = { baseMs: 100, maxMs: 1000 };
    const f = (cause: string, commit: string, now: number) => ({ stage: 'fetch' as const, cause, error: 'x', commit, now });
    const a = nextStreak(undefined, f('fetch: GitError', 'c1', 0), wait);
    expect(a.announce).toBe(true);
    const b = nextStreak(a.streak, f('fetch: GitError', 'c1', 100), wait);
    expect([b.announce, b.streak.failures, b.streak.retryAt]).toEqual([false, 2, 300]);
    const c = nextStreak(b.streak, f('synth: AppValidationError', 'c1', 300), wait);
    expect([c.announce, c.streak.failures]).toEqual([true, 3]);
    const d = nextStreak(c.streak, f('synth: AppValidationError', 'c2', 700), wait);
    expect([d.announce, d.streak.failures, d.streak.retryAt]).toEqual([true, 1, 800]);
  });
});
