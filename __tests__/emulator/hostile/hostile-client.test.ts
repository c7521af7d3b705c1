/**
 * Hostile clients against an emulator in a process of its own: compression bombs and
 * oversized bodies (its peak memory stays far below 300 MB), bodies behind wrong keys
 * refused before they are read, malformed messages in every protocol answered with
 * invalid_argument (never internal or HTTP 500), and thousands of silent or slow
 * connections closed by the timeouts while the emulator keeps answering.
 */
import * as http from 'node:http';
import * as http2 from 'node:http2';
import * as net from 'node:net';
import { Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import { scratchDirs } from '../fixture';
import { tokenFor } from '../helpers';
import { startChildEmulator, type ChildEmulator } from './child-emulator';

const MESSAGE_LIMIT = 4 * 1024 * 1024;
const HEADER_TIMEOUT_MS = 2000;
const IDLE_TIMEOUT_MS = 2500;
const MAX_STREAMS = 16;
const METHOD = '/viam.app.v1.AppService/ListOrganizations';
const PEAK_RSS_LIMIT = 300 * 1024 * 1024;

const scratch = scratchDirs();
let emu: ChildEmulator;
let token: string;
/** 512 MiB of zeros, gzipped (about 500 KB). */
let bomb: Buffer;

beforeAll(async () => {
  emu = await startChildEmulator(scratch(), {
    FLEETFORM_EMULATOR_HEADER_TIMEOUT_MS: String(HEADER_TIMEOUT_MS),
    FLEETFORM_EMULATOR_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS),
    FLEETFORM_EMULATOR_MAX_CONCURRENT_STREAMS: String(MAX_STREAMS),
  });
  token = await tokenFor(emu.url, emu.credentials.apiKeyId, emu.credentials.apiKey);
  bomb = await gzipZeros(512 * 1024 * 1024);
}, 120_000);

afterAll(async () => {
  await emu?.stop();
});

async function gzipZeros(total: number): Promise<Buffer> {
  const chunk = Buffer.alloc(1024 * 1024);
  let left = total;
  const source = new Readable({
    read() {
      if (left <= 0) return void this.push(null);
      left -= chunk.length;
      this.push(chunk);
    },
  });
  const parts: Buffer[] = [];
  for await (const part of source.pipe(zlib.createGzip({ level: 9 }))) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

function envelope(flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt8(flags, 0);
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

/** A body that keeps producing zeros (up to `total`) until the answer arrives; counts what it produced. */
function endless(total: number): { stream: Readable; produced: () => number; stop: () => void } {
  let produced = 0;
  let stopped = false;
  const chunk = Buffer.alloc(64 * 1024);
  const stream = new Readable({
    read() {
      if (stopped || produced >= total) return void this.push(null);
      produced += chunk.length;
      this.push(chunk);
    },
  });
  return { stream, produced: () => produced, stop: () => (stopped = true) };
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  trailers: Record<string, string | string[] | undefined>;
}

/** One HTTP/1.1 request on a connection of its own; resolves with the answer even if the server cuts the upload. */
function h1(path: string, headers: Record<string, string>, body: Buffer | Readable): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(emu.url + path, { method: 'POST', headers, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts), trailers: res.trailers }),
      );
      res.on('error', reject);
    });
    req.on('error', () => undefined); // the server may close the upload once it answered
    if (Buffer.isBuffer(body)) req.end(body);
    else body.pipe(req);
  });
}

/**
 * HTTP/1.1 over a plain socket for bodies that never end: the answer is read while the body
 * is still being sent, and kept when the server then stops the upload (a library client
 * drops an answer once its write fails).
 */
function h1Streaming(path: string, headers: Record<string, string>, body: Readable): Promise<Answer> {
  return new Promise((resolve) => {
    const socket = net.connect(emu.port, '127.0.0.1');
    const chunked = headers['content-length'] === undefined;
    const head = [
      `POST ${path} HTTP/1.1`,
      'host: 127.0.0.1',
      ...(chunked ? ['transfer-encoding: chunked'] : []),
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ];
    socket.write(`${head.join('\r\n')}\r\n\r\n`);
    const received: Buffer[] = [];
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      body.unpipe();
      socket.destroy();
      const text = Buffer.concat(received).toString('latin1');
      const status = Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0);
      const split = text.indexOf('\r\n\r\n');
      resolve({ status, headers: {}, body: Buffer.from(split < 0 ? '' : text.slice(split + 4), 'latin1'), trailers: {} });
    };
    socket.on('data', (c: Buffer) => {
      received.push(c);
      // The answers here are small: chunked ones end with the last chunk, others after content-length bytes.
      const text = Buffer.concat(received).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(text.slice(0, split))?.[1];
      if (text.includes('\r\n0\r\n\r\n') || (split >= 0 && length !== undefined && text.length - split - 4 >= Number(length))) finish();
    });
    socket.on('error', () => undefined);
    socket.on('close', finish);
    body.on('data', (c: Buffer) => {
      if (done) return;
      const ok = socket.write(chunked ? Buffer.concat([Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from('\r\n')]) : c);
      if (!ok) {
        body.pause();
        socket.once('drain', () => body.resume());
      }
    });
  });
}

function h2(path: string, headers: Record<string, string>, body: Buffer | Readable): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(emu.url);
    session.on('error', () => undefined);
    const req = session.request({ ':method': 'POST', ':path': path, te: 'trailers', ...headers });
    let status = 0;
    let resHeaders: Answer['headers'] = {};
    let trailers: Answer['trailers'] = {};
    const parts: Buffer[] = [];
    req.on('response', (h) => {
      status = Number(h[':status']);
      resHeaders = h;
    });
    req.on('trailers', (t) => (trailers = t));
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('error', () => undefined);
    req.on('close', () => {
      session.close();
      if (status === 0) reject(new Error(`no answer on ${path}`));
      else resolve({ status, headers: resHeaders, body: Buffer.concat(parts), trailers });
    });
    if (Buffer.isBuffer(body)) req.end(body);
    else body.pipe(req);
  });
}

/** The status of an answer as a gRPC code number, whatever the protocol. */
function codeOfAnswer(protocol: 'connect' | 'grpc-web' | 'grpc', a: Answer): number | string {
  if (protocol === 'connect') return /"code":"([a-z_]+)"/.exec(a.body.toString())?.[1] ?? `no code in ${a.body.toString()}`;
  if (protocol === 'grpc') return Number(a.trailers['grpc-status'] ?? a.headers['grpc-status']);
  const text = a.body.toString('latin1');
  const m = /grpc-status:\s*(\d+)/.exec(text) ?? /(\d+)/.exec(String(a.headers['grpc-status']));
  return Number(m?.[1]);
}

/** A whole body is sent with its length. */
function withLength(headers: Record<string, string>, body: Buffer | Readable): Record<string, string> {
  return Buffer.isBuffer(body) ? { ...headers, 'content-length': String(body.length) } : headers;
}

type Protocol = 'connect' | 'grpc-web' | 'grpc';
const PROTOCOLS: readonly Protocol[] = ['connect', 'grpc-web', 'grpc'];

/** Sends `payload` (the bytes of one message, compressed when `gzip`) as a call in `protocol`. */
function call(
  protocol: Protocol,
  payload: Buffer | Readable,
  options: { gzip?: boolean; auth?: string; length?: number } = {},
): Promise<Answer> {
  const auth: Record<string, string> = options.auth ? { authorization: options.auth } : {};
  const length: Record<string, string> = options.length !== undefined ? { 'content-length': String(options.length) } : {};
  if (protocol === 'connect') {
    const headers = {
      'content-type': 'application/proto',
      'connect-protocol-version': '1',
      ...(options.gzip ? { 'content-encoding': 'gzip' } : {}),
      ...auth,
      ...length,
    };
    return h1Streaming(METHOD, withLength(headers, payload), Buffer.isBuffer(payload) ? Readable.from([payload]) : payload);
  }
  const body = Buffer.isBuffer(payload) ? envelope(options.gzip ? 1 : 0, payload) : payload;
  const enc: Record<string, string> = options.gzip ? { 'grpc-encoding': 'gzip' } : {};
  if (protocol === 'grpc-web') {
    const headers = { 'content-type': 'application/grpc-web+proto', ...enc, ...auth, ...length };
    return h1Streaming(METHOD, withLength(headers, body), Buffer.isBuffer(body) ? Readable.from([body]) : body);
  }
  return h2(METHOD, { 'content-type': 'application/grpc', ...enc, ...auth, ...length }, body);
}

const UNAUTHENTICATED = { connect: 'unauthenticated', 'grpc-web': 16, grpc: 16 } as const;
const RESOURCE_EXHAUSTED = { connect: 'resource_exhausted', 'grpc-web': 8, grpc: 8 } as const;
const INVALID_ARGUMENT = { connect: 'invalid_argument', 'grpc-web': 3, grpc: 3 } as const;

describe.each(PROTOCOLS)('%s', (protocol) => {
  test('a gzip bomb without credentials is refused as unauthenticated, before it is inflated', async () => {
    const a = await call(protocol, bomb, { gzip: true });
    expect(codeOfAnswer(protocol, a)).toBe(UNAUTHENTICATED[protocol]);
    expect(emu.peakRss()).toBeLessThan(PEAK_RSS_LIMIT);
  });

  test('a gzip bomb with credentials stops at the message limit while inflating: resource_exhausted', async () => {
    const a = await call(protocol, bomb, { gzip: true, auth: `Bearer ${token}` });
    expect(codeOfAnswer(protocol, a)).toBe(RESOURCE_EXHAUSTED[protocol]);
    expect(a.status).not.toBe(500);
    expect(emu.peakRss()).toBeLessThan(PEAK_RSS_LIMIT);
  });

  test('an uncompressed message over the limit is resource_exhausted', async () => {
    const a = await call(protocol, Buffer.alloc(MESSAGE_LIMIT + 1024, 0x08), { auth: `Bearer ${token}` });
    expect(codeOfAnswer(protocol, a)).toBe(RESOURCE_EXHAUSTED[protocol]);
  });

  test('a wrong key with a 4 GiB body is refused before the body is read', async () => {
    const total = 4 * 1024 * 1024 * 1024;
    const body = endless(total);
    const a = await call(protocol, body.stream, { auth: 'Bearer not-a-token' });
    body.stop();
    expect(codeOfAnswer(protocol, a)).toBe(UNAUTHENTICATED[protocol]);
    // What left the client before the refusal arrived: socket buffers, not the body.
    expect(body.produced()).toBeLessThan(256 * 1024 * 1024);
  });

  test('a body announced over the limit is refused from its headers', async () => {
    const body = endless(1024 * 1024 * 1024);
    const a = await call(protocol, body.stream, { auth: `Bearer ${token}`, length: 1024 * 1024 * 1024 });
    body.stop();
    expect(codeOfAnswer(protocol, a)).toBe(RESOURCE_EXHAUSTED[protocol]);
    expect(body.produced()).toBeLessThan(256 * 1024 * 1024);
  });

  test('a message that is not protobuf is invalid_argument, never internal', async () => {
    const a = await call(protocol, Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]), { auth: `Bearer ${token}` });
    expect(codeOfAnswer(protocol, a)).toBe(INVALID_ARGUMENT[protocol]);
    expect(a.status).not.toBe(500);
  });
});

test('Connect JSON that does not parse is invalid_argument', async () => {
  const a = await h1(
    METHOD,
    { 'content-type': 'application/json', 'connect-protocol-version': '1', authorization: `Bearer ${token}` },
    Buffer.from('{"organizationId": '),
  );
  expect(a.status).toBe(400);
  expect(JSON.parse(a.body.toString())).toMatchObject({ code: 'invalid_argument' });
});

test.each(['grpc-web', 'grpc'] as const)('%s: an envelope promising more bytes than it holds is invalid_argument', async (protocol) => {
  const head = Buffer.from([0, 0, 0, 0, 100]);
  const answer =
    protocol === 'grpc'
      ? await h2(
          METHOD,
          { 'content-type': 'application/grpc', authorization: `Bearer ${token}` },
          Buffer.concat([head, Buffer.from([1, 2, 3])]),
        )
      : await h1(
          METHOD,
          { 'content-type': 'application/grpc-web+proto', authorization: `Bearer ${token}` },
          Buffer.concat([head, Buffer.from([1, 2, 3])]),
        );
  expect(codeOfAnswer(protocol, answer)).toBe(3);
});

test('HTTP/2 connections announce the stream cap', async () => {
  const session = http2.connect(emu.url);
  const settings = await new Promise<http2.Settings>((resolve) => session.once('remoteSettings', resolve));
  session.close();
  expect(settings.maxConcurrentStreams).toBe(MAX_STREAMS);
});

/** A connection that sends nothing, and when the server closed it. */
function connectSilently(): Promise<{ socket: net.Socket; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(emu.port, '127.0.0.1');
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

test('2,000 silent connections: health still answers, and the idle timeout closes them all', async () => {
  const connections = await Promise.all(Array.from({ length: 2000 }, () => connectSilently()));
  const sockets = connections.map((c) => c.socket);
  for (const s of sockets) s.on('error', () => undefined);
  const health = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    http
      .get(`${emu.url}/healthz`, { agent: false }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
  expect(health).toEqual({ status: 200, body: 'ok\n' });
  await Promise.all(connections.map((c) => c.closed));
  expect(sockets.every((s) => s.destroyed)).toBe(true);
}, 180_000);

test('a request whose headers never finish is closed after the header timeout', async () => {
  const { socket: s, closed } = await connectSilently();
  s.write('POST /viam.app.v1.AppService/ListOrganizations HTTP/1.1\r\nHost: x\r\n');
  // Trickle a header line now and then: traffic, but never the end of the headers.
  const trickle = setInterval(() => s.write('x-slow: 1\r\n'), HEADER_TIMEOUT_MS / 4);
  await closed;
  clearInterval(trickle);
  expect(s.destroyed).toBe(true);
});

test('an HTTP/2 connection that opens no stream is closed after the header timeout', async () => {
  const session = http2.connect(emu.url);
  session.on('error', () => undefined);
  await new Promise<void>((resolve) => session.once('close', () => resolve()));
  expect(session.destroyed).toBe(true);
});
