/**
 * Plain calls against answers scripted byte for byte on a real HTTP/1.1 server on
 * 127.0.0.1: a plain call takes the plain successful answer (and gives what the regular
 * transport gives on the same bytes), declines every other answer, sends the regular
 * transport's request, and a client whose plain read is declined makes the read again
 * through the regular path (re-authenticating there) with one request per read afterwards.
 */
import type * as http from 'node:http';
import { gzipSync } from 'node:zlib';
import { Code, ConnectError, createPromiseClient, type Transport } from '@connectrpc/connect';
import { createTransport as createConnectGrpcWebTransport } from '@connectrpc/connect/protocol-grpc-web';
import { compressionGzip } from '@connectrpc/connect-node';
import type { Compression } from '@connectrpc/connect/protocol';
import { createServiceClient, ServiceError } from '../../src/api/client';
import { createPlainUnary, type PlainCall } from '../../src/api/client/plain-unary';
import { createUndiciHttpClient, type UndiciHttpClient } from '../../src/api/client/undici-http-client';
import { loadSdk, type Sdk } from '../../src/api/sdk';
import { loadServices, type Services } from '../../src/api/services';
import {
  closedPortUrl,
  frame,
  startScriptedServer,
  trailer,
  type Scripted,
  type ScriptedServer,
  type SeenRequest,
} from './scripted-grpc-web';

const ok = trailer('grpc-status: 0\r\ngrpc-message: \r\n');
const TIMEOUT_MS = 2000;

let sdk: Sdk;
let services: Services;
let server: ScriptedServer;
let url: string;
let http1: UndiciHttpClient;

beforeAll(async () => {
  sdk = await loadSdk();
  services = await loadServices();
  server = await startScriptedServer();
  url = server.url;
  http1 = createUndiciHttpClient(url, { connections: 4 });
});

afterAll(async () => {
  await http1.close();
  await server.close();
});

beforeEach(() => server.reset());

type JobCall = PlainCall<
  InstanceType<Services['mlTraining']['methods']['getTrainingJob']['I']>,
  InstanceType<Services['mlTraining']['methods']['getTrainingJob']['O']>
>;

interface PlainJobOptions {
  readonly token?: () => string | undefined;
  readonly accept?: readonly Compression[];
  readonly timeoutMs?: number;
  /** The pool to call through (the suite's, to the scripted server, by default). */
  readonly via?: { readonly url: string; readonly client: UndiciHttpClient };
}

/** A plain GetTrainingJob call (token-1, gzip accepted, the suite's deadline unless told). */
function plainJobCall(options: PlainJobOptions = {}): JobCall {
  const plain = createPlainUnary({
    baseUrl: options.via?.url ?? url,
    exchange: (options.via?.client ?? http1).rawExchange,
    token: options.token ?? (() => 'token-1'),
    acceptCompression: options.accept ?? [compressionGzip],
    timeoutMs: options.timeoutMs ?? TIMEOUT_MS,
  });
  return plain(services.mlTraining, services.mlTraining.methods.getTrainingJob);
}

/** connect-es's own gRPC-web transport carrying the same token, as the regular path does. */
function regularTransport(): Transport {
  return createConnectGrpcWebTransport({
    httpClient: http1.httpClient,
    baseUrl: url,
    useBinaryFormat: true,
    interceptors: [
      (next) => (req) => {
        req.header.set('authorization', 'Bearer token-1');
        return next(req);
      },
    ],
    acceptCompression: [compressionGzip],
    sendCompression: null,
    compressMinBytes: 1024,
    readMaxBytes: 0xffffffff,
    writeMaxBytes: 0xffffffff,
    defaultTimeoutMs: TIMEOUT_MS,
  });
}

/** The job id a regular GetTrainingJob call gives, or its error's code. */
async function regularOutcome(): Promise<unknown> {
  try {
    const res = await createPromiseClient(services.mlTraining, regularTransport()).getTrainingJob({ id: 'job-1' });
    return { id: res.metadata?.id };
  } catch (e) {
    return { code: Code[ConnectError.from(e).code] };
  }
}

async function plainOutcome(call: JobCall = plainJobCall()): Promise<unknown> {
  const res = await call({ id: 'job-1' });
  return res === undefined ? 'declined' : { id: res.metadata?.id };
}

function jobMessage(id: string): Uint8Array {
  return new sdk.mlTrainingApi.GetTrainingJobResponse({ metadata: { id } }).toBinary();
}

/** Answers a plain call takes, and the job id it reads from each. */
const taken: Record<string, [() => Scripted, string]> = {
  'a message and status 0': [() => ({ body: Buffer.concat([frame(0, jobMessage('job-1')), ok]) }), 'job-1'],
  'a status line in capitals and spaces': [
    () => ({ body: Buffer.concat([frame(0, jobMessage('job-c')), trailer('Grpc-Status:  0 \r\n')]) }),
    'job-c',
  ],
  'a gzip-compressed message': [
    () => ({ headers: { 'grpc-encoding': 'gzip' }, body: Buffer.concat([frame(1, gzipSync(jobMessage('job-zip'))), ok]) }),
    'job-zip',
  ],
  'the plain content type': [
    () => ({ headers: { 'content-type': 'application/grpc-web' }, body: Buffer.concat([frame(0, jobMessage('job-p')), ok]) }),
    'job-p',
  ],
};

/** Answers a plain call declines. */
const declined: Record<string, () => Scripted> = {
  'an error in the trailer': () => ({ body: trailer('grpc-status: 5\r\ngrpc-message: not%20found\r\n') }),
  'a message and an error in the trailer': () => ({ body: Buffer.concat([frame(0, jobMessage('job-1')), trailer('grpc-status: 13\r\n')]) }),
  'a trailer giving two statuses': () => ({
    body: Buffer.concat([frame(0, jobMessage('job-1')), trailer('grpc-status: 0\r\ngrpc-status: 5\r\n')]),
  }),
  'a trailer with no status': () => ({ body: Buffer.concat([frame(0, jobMessage('job-1')), trailer('grpc-message: hi\r\n')]) }),
  'an error in the headers only': () => ({ headers: { 'grpc-status': '7', 'grpc-message': 'permission denied' } }),
  'status 0 in the headers with a message': () => ({
    headers: { 'grpc-status': '0' },
    body: Buffer.concat([frame(0, jobMessage('job-1')), ok]),
  }),
  'no trailer': () => ({ body: frame(0, jobMessage('job-1')) }),
  'no message': () => ({ body: ok }),
  'two messages': () => ({ body: Buffer.concat([frame(0, jobMessage('a')), frame(0, jobMessage('b')), ok]) }),
  'two trailers': () => ({ body: Buffer.concat([frame(0, jobMessage('a')), ok, ok]) }),
  'a compressed trailer': () => ({
    headers: { 'grpc-encoding': 'gzip' },
    body: Buffer.concat([frame(0, jobMessage('job-2')), frame(0x81, gzipSync(Buffer.from('grpc-status: 0\r\n')))]),
  }),
  'an envelope cut short': () => ({ body: frame(0, jobMessage('job-1')).subarray(0, 9) }),
  'a body shorter than an envelope header': () => ({ body: Buffer.from([0, 0, 0]) }),
  'HTTP 503': () => ({ status: 503, body: Buffer.from('overloaded') }),
  'HTTP 401 with a grpc-message': () => ({ status: 401, headers: { 'grpc-message': 'bad%20token' } }),
  'a JSON content type': () => ({
    headers: { 'content-type': 'application/grpc-web+json' },
    body: Buffer.concat([frame(0, jobMessage('j')), ok]),
  }),
  'an unknown encoding': () => ({ headers: { 'grpc-encoding': 'br' }, body: Buffer.concat([frame(1, jobMessage('x')), ok]) }),
  'a compressed message with no encoding named': () => ({ body: Buffer.concat([frame(1, gzipSync(jobMessage('x'))), ok]) }),
  'gzip named but the bytes are not gzip': () => ({
    headers: { 'grpc-encoding': 'gzip' },
    body: Buffer.concat([frame(1, jobMessage('x')), ok]),
  }),
  'a message that is not protobuf': () => ({ body: Buffer.concat([frame(0, Buffer.from([0xff, 0xff, 0xff])), ok]) }),
  'an answer after the deadline': () => ({ delayMs: TIMEOUT_MS + 500, body: Buffer.concat([frame(0, jobMessage('late')), ok]) }),
};

describe.each(Object.keys(taken))('taken: %s', (name) => {
  test('gives the message, as the regular transport does', async () => {
    const [script, id] = taken[name] as [() => Scripted, string];
    server.answer = script;
    expect(await plainOutcome()).toEqual({ id });
    expect(await regularOutcome()).toEqual({ id });
  });
});

describe.each(Object.keys(declined))('declined: %s', (name) => {
  test('answers undefined after one request', async () => {
    server.answer = declined[name] as () => Scripted;
    expect(await plainOutcome()).toBe('declined');
    expect(server.seen).toHaveLength(1);
  });
});

test('a gzip-compressed message is declined when the call does not accept gzip', async () => {
  server.answer = taken['a gzip-compressed message']![0];
  expect(await plainOutcome(plainJobCall({ accept: [] }))).toBe('declined');
});

test('the deadline declines while the answer is still awaited (the test times out otherwise)', async () => {
  server.answer = () => ({ delayMs: 120_000 });
  expect(await plainOutcome(plainJobCall({ timeoutMs: 200 }))).toBe('declined');
});

test('a call still queued for a connection at its deadline declines then, and is never sent', async () => {
  const single = createUndiciHttpClient(url, { connections: 1 });
  try {
    const call = plainJobCall({ via: { url, client: single }, timeoutMs: 1500 });
    server.answer = (request) => ({
      delayMs: request.body.includes('slow') ? 1000 : 0,
      body: Buffer.concat([frame(0, jobMessage('job-1')), ok]),
    });
    const slow = call({ id: 'slow' });
    // Queued behind the slow call: its deadline (1.5 s) is the slow one's own, so it passes in the queue.
    const queued = plainJobCall({ via: { url, client: single }, timeoutMs: 50 })({ id: 'queued' });
    expect(await queued).toBeUndefined();
    expect((await slow)?.metadata?.id).toBe('job-1');
    expect((await call({ id: 'after' }))?.metadata?.id).toBe('job-1');
    expect(server.seen.map((s) => sdk.mlTrainingApi.GetTrainingJobRequest.fromBinary(s.body.subarray(5)).id)).toEqual(['slow', 'after']);
  } finally {
    await single.close();
  }
});

test('a server that cannot be reached declines', async () => {
  const address = await closedPortUrl();
  const nowhere = createUndiciHttpClient(address, { connections: 1 });
  try {
    expect(await plainJobCall({ via: { url: address, client: nowhere } })({ id: 'job-1' })).toBeUndefined();
  } finally {
    await nowhere.close();
  }
});

test('the request is the regular transport’s: path, body and gRPC-web headers with the token and deadline', async () => {
  server.answer = taken['a message and status 0']![0];
  await plainOutcome();
  await regularOutcome();
  const [plain, regular] = server.seen as [SeenRequest, SeenRequest];
  expect(plain.path).toBe('/viam.app.mltraining.v1.MLTrainingService/GetTrainingJob');
  expect(plain.path).toBe(regular.path);
  expect(plain.body.equals(regular.body)).toBe(true);
  const wire = (h: http.IncomingHttpHeaders) => {
    const { host: _host, connection: _connection, 'content-length': _length, ...rest } = h;
    return rest;
  };
  expect(wire(plain.headers)).toEqual(wire(regular.headers));
  expect(plain.headers).toMatchObject({
    'content-type': 'application/grpc-web+proto',
    'x-grpc-web': '1',
    'grpc-timeout': `${TIMEOUT_MS}m`,
    'grpc-accept-encoding': 'gzip',
    authorization: 'Bearer token-1',
  });
});

test('the header follows the token: none sends nothing, a new one is carried from the next call', async () => {
  server.answer = taken['a message and status 0']![0];
  let token: string | undefined;
  const call = plainJobCall({ token: () => token });
  expect(await plainOutcome(call)).toBe('declined');
  expect(server.seen).toHaveLength(0);
  token = 'first';
  await plainOutcome(call);
  await plainOutcome(call);
  token = 'second';
  await plainOutcome(call);
  expect(server.seen.map((s) => s.headers.authorization)).toEqual(['Bearer first', 'Bearer first', 'Bearer second']);
});

describe('a client reading part versions', () => {
  const PART_PATH = '/viam.app.v1.AppService/GetRobotPart';
  const AUTH_PATH = '/proto.rpc.v1.AuthService/Authenticate';
  let tokensIssued = 0;
  let staleToken: string | undefined;

  /** Authenticate hands out token-1, token-2, ...; GetRobotPart refuses `staleToken` and answers the rest. */
  function service(request: SeenRequest): Scripted {
    if (request.path === AUTH_PATH) {
      tokensIssued += 1;
      const reply = new services.auth.methods.authenticate.O({ accessToken: `token-${tokensIssued}` });
      return { body: Buffer.concat([frame(0, reply.toBinary()), ok]) };
    }
    if (request.path !== PART_PATH) return { body: trailer('grpc-status: 12\r\n') };
    if (request.headers.authorization === `Bearer ${staleToken}`) return { body: trailer('grpc-status: 16\r\ngrpc-message: expired\r\n') };
    const id = sdk.appApi.GetRobotPartRequest.fromBinary(request.body.subarray(5)).id;
    if (id !== 'part-1') return { body: trailer('grpc-status: 5\r\ngrpc-message: part%20not%20found\r\n') };
    const part = new sdk.appApi.RobotPart({ id, name: 'main', lastUpdated: sdk.Timestamp.fromDate(new Date('2026-11-28T10:00:00Z')) });
    return { body: Buffer.concat([frame(0, new sdk.appApi.GetRobotPartResponse({ part }).toBinary()), ok]) };
  }

  beforeEach(() => {
    tokensIssued = 0;
    staleToken = undefined;
    server.answer = service;
  });

  async function client() {
    return createServiceClient({
      serviceHost: url,
      credentials: { type: 'api-key', authEntity: 'key-id', payload: 'key' },
      retry: { maxAttempts: 1 },
    });
  }

  const partCalls = () => server.seen.filter((s) => s.path === PART_PATH).map((s) => s.headers.authorization);

  test('one request per read while the answers are plain', async () => {
    const c = await client();
    try {
      for (let i = 0; i < 3; i++)
        expect((await c.appClient.getMachinePartVersion('part-1'))?.toISOString()).toBe('2026-11-28T10:00:00.000Z');
      expect(partCalls()).toEqual(['Bearer token-1', 'Bearer token-1', 'Bearer token-1']);
    } finally {
      await c.close();
    }
  });

  test('a refused token: the regular path re-authenticates, and the plain path carries the new token after', async () => {
    const c = await client();
    try {
      staleToken = 'token-1';
      expect((await c.appClient.getMachinePartVersion('part-1'))?.toISOString()).toBe('2026-11-28T10:00:00.000Z');
      expect(partCalls()).toEqual(['Bearer token-1', 'Bearer token-1', 'Bearer token-2']);
      expect(tokensIssued).toBe(2);
      await c.appClient.getMachinePartVersion('part-1');
      expect(partCalls()).toEqual(['Bearer token-1', 'Bearer token-1', 'Bearer token-2', 'Bearer token-2']);
    } finally {
      await c.close();
    }
  });

  test('an error answer is the regular path’s ServiceError', async () => {
    const c = await client();
    try {
      const outcome = await c.appClient.getMachinePartVersion('part-9').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(outcome).toBeInstanceOf(ServiceError);
      expect(outcome).toMatchObject({ code: 'NOT_FOUND', method: 'AppService.GetRobotPart' });
      expect((outcome as Error).message).toContain('part not found');
      expect(partCalls()).toHaveLength(2);
    } finally {
      await c.close();
    }
  });
});
