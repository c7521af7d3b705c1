/**
 * The client's unary gRPC-web path against answers scripted byte for byte on a real
 * HTTP/1.1 server on 127.0.0.1: for every answer (a message, errors in the trailer or
 * the headers, gzip, broken envelopes, HTTP errors) it gives what connect-es's own
 * gRPC-web transport gives on the same bytes, and interceptors, headers and deadlines
 * behave the same.
 */
import { gzipSync } from 'node:zlib';
import { Code, ConnectError, createPromiseClient, type Interceptor, type Transport } from '@connectrpc/connect';
import { createTransport as createConnectGrpcWebTransport } from '@connectrpc/connect/protocol-grpc-web';
import { compressionGzip } from '@connectrpc/connect-node';
import { createGrpcWebUnaryTransport } from '../../src/api/client/grpc-web-unary';
import { createUndiciHttpClient, type UndiciHttpClient } from '../../src/api/client/undici-http-client';
import { loadSdk, type Sdk } from '../../src/api/sdk';
import { loadServices, type Services } from '../../src/api/services';
import { closedPortUrl, frame, startScriptedServer, trailer, type Scripted, type ScriptedServer } from './scripted-grpc-web';

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

/** Answers every request with `a`. */
function answerWith(a: Scripted): void {
  server.answer = () => a;
}

function transports(interceptors: Interceptor[] = [], defaultTimeoutMs = 5000): { ours: Transport; connect: Transport } {
  const acceptCompression = [compressionGzip];
  const connect = createConnectGrpcWebTransport({
    httpClient: http1.httpClient,
    baseUrl: url,
    useBinaryFormat: true,
    interceptors,
    acceptCompression,
    sendCompression: null,
    compressMinBytes: 1024,
    readMaxBytes: 0xffffffff,
    writeMaxBytes: 0xffffffff,
    defaultTimeoutMs,
  });
  const ours = createGrpcWebUnaryTransport({
    baseUrl: url,
    exchange: http1.exchange,
    streaming: connect,
    interceptors,
    acceptCompression,
    defaultTimeoutMs,
  });
  return { ours, connect };
}

/** What a GetTrainingJob call gives through `transport`: the job id, or the error's code and message. */
async function outcome(transport: Transport, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<unknown> {
  const client = createPromiseClient(services.mlTraining, transport);
  try {
    const res = await client.getTrainingJob({ id: 'job-1' }, options);
    return { id: res.metadata?.id };
  } catch (e) {
    const err = ConnectError.from(e);
    return { code: Code[err.code], message: err.rawMessage };
  }
}

function jobMessage(id: string): Uint8Array {
  return new sdk.mlTrainingApi.GetTrainingJobResponse({ metadata: { id } }).toBinary();
}

const scripts: Record<string, () => Scripted> = {
  'a message and status 0': () => ({ body: Buffer.concat([frame(0, jobMessage('job-1')), trailer('grpc-status: 0\r\n')]) }),
  'a gzip-compressed message': () => ({
    headers: { 'grpc-encoding': 'gzip' },
    body: Buffer.concat([frame(1, gzipSync(jobMessage('job-zip'))), trailer('grpc-status: 0\r\n')]),
  }),
  'a compressed trailer': () => ({
    headers: { 'grpc-encoding': 'gzip' },
    body: Buffer.concat([frame(0, jobMessage('job-2')), frame(0x81, gzipSync(Buffer.from('grpc-status: 0\r\n')))]),
  }),
  'an error in the trailer': () => ({ body: trailer('grpc-status: 5\r\ngrpc-message: training%20job%20not%20found\r\n') }),
  'an error in the headers only': () => ({ headers: { 'grpc-status': '7', 'grpc-message': 'permission denied' } }),
  'no trailer': () => ({ body: frame(0, jobMessage('job-1')) }),
  'no message': () => ({ body: trailer('grpc-status: 0\r\n') }),
  'two messages': () => ({ body: Buffer.concat([frame(0, jobMessage('a')), frame(0, jobMessage('b')), trailer('grpc-status: 0\r\n')]) }),
  'two trailers': () => ({
    body: Buffer.concat([frame(0, jobMessage('a')), trailer('grpc-status: 0\r\n'), trailer('grpc-status: 0\r\n')]),
  }),
  'an envelope cut short': () => ({ body: frame(0, jobMessage('job-1')).subarray(0, 9) }),
  'a body shorter than an envelope header': () => ({ body: Buffer.from([0, 0, 0]) }),
  'HTTP 503': () => ({ status: 503, body: Buffer.from('overloaded') }),
  'HTTP 401 with a grpc-message': () => ({ status: 401, headers: { 'grpc-message': 'bad%20token' } }),
  'an unknown encoding': () => ({
    headers: { 'grpc-encoding': 'br' },
    body: Buffer.concat([frame(1, jobMessage('x')), trailer('grpc-status: 0\r\n')]),
  }),
  'a message that is not protobuf': () => ({
    body: Buffer.concat([frame(0, Buffer.from([0xff, 0xff, 0xff])), trailer('grpc-status: 0\r\n')]),
  }),
};

describe.each(Object.keys(scripts))('answer: %s', (name) => {
  test('gives what connect-es gives', async () => {
    const { ours, connect } = transports();
    answerWith((scripts[name] as () => Scripted)());
    const expected = await outcome(connect);
    const got = await outcome(ours);
    expect(got).toEqual(expected);
  });
});

test('the answers above are not all alike: messages, codes and texts come through', async () => {
  const { ours } = transports();
  const results: unknown[] = [];
  for (const name of [
    'a message and status 0',
    'a gzip-compressed message',
    'an error in the trailer',
    'an error in the headers only',
    'HTTP 503',
  ]) {
    answerWith((scripts[name] as () => Scripted)());
    results.push(await outcome(ours));
  }
  expect(results).toEqual([
    { id: 'job-1' },
    { id: 'job-zip' },
    { code: 'NotFound', message: 'training job not found' },
    { code: 'PermissionDenied', message: 'permission denied' },
    { code: 'Unavailable', message: 'HTTP 503' },
  ]);
});

test('the request carries the gRPC-web headers, the deadline and what interceptors add, in their order', async () => {
  const order: string[] = [];
  const tag =
    (name: string): Interceptor =>
    (next) =>
    async (req) => {
      order.push(`${name} in`);
      req.header.set(`x-${name}`, 'yes');
      const res = await next(req);
      order.push(`${name} out`);
      return res;
    };
  const { ours } = transports([tag('outer'), tag('inner')], 5000);
  answerWith(scripts['a message and status 0']!());
  expect(await outcome(ours)).toEqual({ id: 'job-1' });
  expect(order).toEqual(['outer in', 'inner in', 'inner out', 'outer out']);
  const h = server.seen[0]!.headers;
  expect({
    type: h['content-type'],
    web: h['x-grpc-web'],
    outer: h['x-outer'],
    inner: h['x-inner'],
    accept: h['grpc-accept-encoding'],
  }).toEqual({
    type: 'application/grpc-web+proto',
    web: '1',
    outer: 'yes',
    inner: 'yes',
    accept: 'gzip',
  });
  expect(h['grpc-timeout']).toMatch(/^\d+m$/);
});

test('a call past its deadline is DEADLINE_EXCEEDED, as with connect-es', async () => {
  const { ours, connect } = transports();
  answerWith({ ...scripts['a message and status 0']!(), delayMs: 300 });
  const expected = await outcome(connect, { timeoutMs: 50 });
  expect(expected).toMatchObject({ code: 'DeadlineExceeded' });
  expect(await outcome(ours, { timeoutMs: 50 })).toEqual(expected);
});

test("a call the caller cancels is CANCELED with the caller's reason", async () => {
  const { ours } = transports();
  answerWith({ ...scripts['a message and status 0']!(), delayMs: 300 });
  const controller = new AbortController();
  const pending = outcome(ours, { signal: controller.signal });
  setTimeout(() => controller.abort(new ConnectError('stopped by the user', Code.Canceled)), 20);
  expect(await pending).toEqual({ code: 'Canceled', message: 'stopped by the user' });
  const aborted = new AbortController();
  aborted.abort(new ConnectError('already stopped', Code.Canceled));
  expect(await outcome(ours, { signal: aborted.signal })).toEqual({ code: 'Canceled', message: 'already stopped' });
});

test('an unreachable server is UNAVAILABLE', async () => {
  const nowhere = await closedPortUrl();
  const gone = createUndiciHttpClient(nowhere, { connections: 1 });
  const unused = transports().connect;
  const ours = createGrpcWebUnaryTransport({
    baseUrl: nowhere,
    exchange: gone.exchange,
    streaming: unused,
    interceptors: [],
    acceptCompression: [],
    defaultTimeoutMs: 2000,
  });
  expect(await outcome(ours)).toMatchObject({ code: 'Unavailable', message: expect.stringContaining('ECONNREFUSED') });
  await gone.close();
});
