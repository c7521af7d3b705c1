/**
 * Transport behaviour on a real HTTP/1.1 server on 127.0.0.1 speaking gRPC-web: the
 * undici pool never opens more than maxConnections sockets and reuses them, per-call
 * deadlines reach the server, safe calls are retried and unsafe ones are not, and an
 * unreachable host is UNAVAILABLE with a hint.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServiceClient, ServiceError, type RetryClock } from '../../src/api/client';
import { defaultCompression } from '../../src/api/client/transport';
import { closedPortUrl } from './scripted-grpc-web';
import { wholeEnvelopes } from '../../src/api/client/undici-http-client';
import * as own from '../../src/api/own-messages';
import { loadSdk, type Sdk } from '../../src/api/sdk';
import { ModelType } from '../../src/domain/training';

const ML = '/viam.app.mltraining.v1.MLTrainingService';
const credentials = { type: 'api-key', authEntity: 'kid', payload: 'the-api-key-1234' } as const;

function frame(flag: number, payload: Uint8Array): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt8(flag, 0);
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

interface Pending {
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  answer(): void;
}

/** What the server does with a request: answer now, or keep it for the test to answer. */
type Policy = (p: Pending) => 'answer' | 'hold';

let sdk: Sdk;
let server: http.Server;
let url: string;
let connections = 0;
let requests: Pending[] = [];
let policy: Policy = () => 'answer';

beforeAll(async () => {
  sdk = await loadSdk();
  const ok: Record<string, Uint8Array> = {
    '/proto.rpc.v1.AuthService/Authenticate': new own.AuthenticateResponse({ accessToken: 'tok' }).toBinary(),
    [`${ML}/GetTrainingJob`]: new sdk.mlTrainingApi.GetTrainingJobResponse({
      metadata: { id: 'job-1', status: sdk.mlTrainingApi.TrainingStatus.PENDING },
    }).toBinary(),
    [`${ML}/SubmitTrainingJob`]: new sdk.mlTrainingApi.SubmitTrainingJobResponse({ id: 'job-1' }).toBinary(),
  };
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = req.url ?? '';
      const p: Pending = {
        path,
        headers: req.headers,
        answer: () => {
          if (res.writableEnded || res.destroyed) return;
          res.writeHead(200, { 'content-type': 'application/grpc-web+proto' });
          res.end(Buffer.concat([frame(0, ok[path]!), frame(0x80, Buffer.from('grpc-status: 0\r\n'))]));
        },
      };
      if (path.startsWith('/proto.rpc.v1.AuthService/')) return p.answer();
      requests.push(p);
      if (policy(p) === 'answer') p.answer();
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

beforeEach(() => {
  connections = 0;
  requests = [];
  policy = () => 'answer';
});

const noWait = (): RetryClock & { waits: number[] } => {
  const waits: number[] = [];
  return { waits, sleep: async (ms) => void waits.push(ms), random: () => 0.5 };
};

test('the HTTP/1.1 pool opens at most maxConnections sockets and reuses them', async () => {
  const client = await createServiceClient({ serviceHost: url, credentials, maxConnections: 3 });
  // Requests are answered only in groups of three: with fewer than three connections the
  // calls could never finish, with more the server would count more connections.
  policy = () => {
    const waiting = requests.filter((r) => r.path.endsWith('/GetTrainingJob'));
    if (waiting.length % 3 === 0) for (const r of waiting.slice(-3)) r.answer();
    return 'hold';
  };
  const batch = () => Promise.all(Array.from({ length: 24 }, () => client.mlTrainingClient.getTrainingJob('job-1')));
  const first = await batch();
  expect(first).toHaveLength(24);
  expect(first.every((j) => j.id === 'job-1')).toBe(true);
  expect(connections).toBe(3);
  expect(client.connections()).toBe(3);
  await batch();
  expect(connections).toBe(3); // kept alive and reused
  expect(requests).toHaveLength(48);
  await client.close();
});

test('the default pool is sized 10', async () => {
  const client = await createServiceClient({ serviceHost: url, credentials });
  policy = () => {
    if (requests.length % 10 === 0) for (const r of requests.slice(-10)) r.answer();
    return 'hold';
  };
  await Promise.all(Array.from({ length: 30 }, () => client.mlTrainingClient.getTrainingJob('job-1')));
  expect(connections).toBe(10);
  await client.close();
});

test('a read past its deadline is DEADLINE_EXCEEDED after retries; the deadline reaches the server', async () => {
  const clock = noWait();
  const client = await createServiceClient({ serviceHost: url, credentials, timeoutMs: 150, retry: { maxAttempts: 3 }, clock });
  policy = () => 'hold';
  const err = await client.mlTrainingClient.getTrainingJob('job-1').catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ServiceError);
  expect(err).toMatchObject({ code: 'DEADLINE_EXCEEDED', method: 'MLTrainingService.GetTrainingJob' });
  expect((err as ServiceError).hint).toContain('150 ms');
  expect(requests.map((r) => r.path)).toEqual(Array(3).fill(`${ML}/GetTrainingJob`));
  expect(requests[0]!.headers['grpc-timeout']).toMatch(/^\d+m$/);
  expect(clock.waits).toEqual([50, 100]);
  await client.close();
});

test('a submit past its deadline is not repeated', async () => {
  const clock = noWait();
  const client = await createServiceClient({ serviceHost: url, credentials, timeoutMs: 150, clock });
  policy = () => 'hold';
  await expect(
    client.mlTrainingClient.submitTrainingJob('org', 'ds', 'boxes', '1', ModelType.OBJECT_DETECTION, ['box']),
  ).rejects.toMatchObject({ code: 'DEADLINE_EXCEEDED', method: 'MLTrainingService.SubmitTrainingJob' });
  expect(requests.map((r) => r.path)).toEqual([`${ML}/SubmitTrainingJob`]);
  expect(clock.waits).toEqual([]);
  await client.close();
});

test('an unreachable service is UNAVAILABLE at connect time, with a hint and without the key', async () => {
  const nowhere = await closedPortUrl();
  const clock = noWait();
  const err = await createServiceClient({ serviceHost: nowhere, credentials, clock }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ServiceError);
  expect(err).toMatchObject({ code: 'UNAVAILABLE', method: 'AuthService.Authenticate' });
  expect((err as ServiceError).hint).toContain(nowhere.replace('http://', ''));
  expect(clock.waits).toHaveLength(3); // Authenticate is safe to repeat
  expect((err as ServiceError).format()).not.toContain(credentials.payload);
});

test('bad options are input errors that never echo the key', async () => {
  await expect(createServiceClient({ serviceHost: '127.0.0.1:8080', credentials })).rejects.toMatchObject({
    name: 'InputError',
    path: 'serviceHost',
  });
  const err = await createServiceClient({ serviceHost: url, credentials: { ...credentials, authEntity: '' } }).catch((e: unknown) => e);
  expect(err).toMatchObject({ name: 'InputError', path: 'credentials.authEntity' });
  expect(String((err as Error).message)).not.toContain(credentials.payload);
  await expect(createServiceClient({ serviceHost: url, credentials, maxConnections: 0 })).rejects.toMatchObject({ path: 'maxConnections' });
});

test('gzip responses are asked for only when compression is gzip; by default only for remote hosts', async () => {
  for (const compression of [undefined, 'none', 'gzip'] as const) {
    requests = [];
    const client = await createServiceClient({ serviceHost: url, credentials, ...(compression ? { compression } : {}) });
    await client.mlTrainingClient.getTrainingJob('job-1');
    const accepted = String(requests[0]?.headers['grpc-accept-encoding'] ?? '');
    expect({ compression, gzip: accepted.includes('gzip') }).toEqual({ compression, gzip: compression === 'gzip' });
    await client.close();
  }
  expect(['http://127.0.0.1:8080', 'http://localhost:1', 'http://[::1]:8080', 'http://127.1.2.3'].map(defaultCompression)).toEqual([
    'none',
    'none',
    'none',
    'none',
  ]);
  expect(['https://app.viam.com:443', 'http://10.0.0.5:8080', 'http://127.example.com'].map(defaultCompression)).toEqual([
    'gzip',
    'gzip',
    'gzip',
  ]);
  await expect(createServiceClient({ serviceHost: url, credentials, compression: 'br' as 'gzip' })).rejects.toMatchObject({
    path: 'compression',
  });
});

describe('wholeEnvelopes', () => {
  async function* from(chunks: readonly Uint8Array[]): AsyncIterable<Uint8Array> {
    for (const c of chunks) yield c;
  }
  const collect = async (chunks: readonly Uint8Array[]): Promise<number[][]> => {
    const out: number[][] = [];
    for await (const c of wholeEnvelopes(from(chunks))) out.push([...c]);
    return out;
  };
  const a = frame(0, Uint8Array.from([1, 2, 3]));
  const b = frame(0x80, Uint8Array.from(Array.from({ length: 300 }, (_, i) => i % 256)));
  const c = frame(0, new Uint8Array(0));
  const body = Buffer.concat([a, b, c]);

  test('each envelope comes whole and alone, however the body was cut', async () => {
    const expected = [[...a], [...b], [...c]];
    expect(await collect([body])).toEqual(expected);
    expect(await collect([...body].map((x) => Uint8Array.of(x)))).toEqual(expected); // byte by byte
    expect(await collect([body.subarray(0, 2), body.subarray(2, 9), body.subarray(9, 200), body.subarray(200)])).toEqual(expected);
  });

  test('bytes that do not finish an envelope are passed on at the end, untouched', async () => {
    const cut = Buffer.concat([a, b.subarray(0, 50)]);
    expect(await collect([cut.subarray(0, 3), cut.subarray(3)])).toEqual([[...a], [...b.subarray(0, 50)]]);
    expect(await collect([Buffer.from('<html>')])).toEqual([[...Buffer.from('<html>')]]);
  });
});
