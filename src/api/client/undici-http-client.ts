/**
 * An HTTP/1.1 client over an undici connection pool: at most `connections` keep-alive
 * sockets to one origin, requests beyond that wait in the pool's queue. It serves
 * connect-es transports (streamed bodies) and whole exchanges (one request buffer, one
 * answer buffer) over the same pool. connect-node's own HTTP/1.1 client opens a socket per
 * request unless given an agent; this one pools by construction and exposes the pool's
 * statistics.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import type { UniversalClientFn, UniversalClientRequest, UniversalClientResponse } from '@connectrpc/connect/protocol';
import type { Dispatcher } from 'undici';
import { Pool, request } from './undici-parts';
import { errorMessage } from '../../domain/errors';

/** Options of {@link createUndiciHttpClient}. */
export interface UndiciHttpClientOptions {
  /** Largest number of simultaneous connections to the origin. */
  readonly connections: number;
}

/** A whole HTTP answer: status, headers and the body in one buffer. */
export interface WholeAnswer {
  readonly status: number;
  readonly header: Headers;
  readonly body: Uint8Array;
}

/** Header names (lower case) and values as undici takes and gives them. */
export type RawHeaders = Record<string, string | string[] | undefined>;

/** A whole HTTP answer with its header as undici gives it. */
export interface RawAnswer {
  readonly status: number;
  readonly header: RawHeaders;
  readonly body: Uint8Array;
}

/**
 * POSTs `body` to `path` (under the pool's origin) with a header record the caller may
 * build once for many calls, and reads the whole answer; it fails (a ConnectError as
 * below) when the server cannot be talked to or no answer came within `timeoutMs`.
 */
export type RawExchange = (
  path: string,
  header: Readonly<Record<string, string>>,
  body: Uint8Array,
  timeoutMs: number,
) => Promise<RawAnswer>;

/** POSTs `body` to `url` and reads the whole answer; failures to talk to the server are ConnectErrors as in {@link UndiciHttpClient.httpClient}. */
export type WholeExchange = (url: string, header: Headers, body: Uint8Array, signal: AbortSignal | undefined) => Promise<WholeAnswer>;

/** The connect-es HTTP client function plus the pool behind it. */
export interface UndiciHttpClient {
  readonly httpClient: UniversalClientFn;
  /** The same pool for a request and an answer each taken whole. */
  readonly exchange: WholeExchange;
  /** The same pool with no web Headers either way, for calls whose header is built once. */
  readonly rawExchange: RawExchange;
  /** Connections open now, requests running and queued (undici's pool statistics). */
  stats(): { connected: number; running: number; pending: number; size: number };
  /** Closes idle connections after running requests finish. */
  close(): Promise<void>;
}

/** Creates a pooled HTTP/1.1 client for every URL under `baseUrl`'s origin. */
export function createUndiciHttpClient(baseUrl: string, options: UndiciHttpClientOptions): UndiciHttpClient {
  const origin = new URL(baseUrl).origin;
  const pool = new Pool(origin, { connections: options.connections, pipelining: 1 });
  const httpClient: UniversalClientFn = (req) => send(pool, req);
  return {
    httpClient,
    exchange: (url, header, body, signal) => exchangeWhole(pool, url, header, body, signal),
    rawExchange: (path, header, body, timeoutMs) => dispatchWhole(pool, path, header, body, { timeoutMs }),
    stats: () => {
      const s = pool.stats;
      return { connected: s.connected, running: s.running, pending: s.pending, size: s.size };
    },
    close: () => (pool.closed ? Promise.resolve() : pool.close()),
  };
}

async function send(pool: Pool, req: UniversalClientRequest): Promise<UniversalClientResponse> {
  try {
    const body = req.body === undefined ? undefined : await collect(req.body);
    const res = await request(pool, {
      path: pathOf(req.url),
      method: req.method as 'POST',
      headers: Object.fromEntries(req.header),
      body,
      signal: req.signal,
    });
    const trailer = new Headers();
    return {
      status: res.statusCode,
      header: toWebHeaders(res.headers),
      body: readBody(res.body, res.trailers, trailer, req.signal),
      trailer,
    };
  } catch (e) {
    throw transportError(e, req.signal);
  }
}

/**
 * One request and its whole answer through the pool's dispatcher, with web Headers both
 * ways (what connect-es's functions read).
 */
async function exchangeWhole(
  pool: Pool,
  url: string,
  header: Headers,
  body: Uint8Array,
  signal: AbortSignal | undefined,
): Promise<WholeAnswer> {
  const answer = await dispatchWhole(pool, pathOf(url), Object.fromEntries(header), body, { signal });
  return { status: answer.status, header: toWebHeaders(answer.header), body: answer.body };
}

/** What stops an exchange early: the caller's signal, or a deadline of its own. */
interface ExchangeStop {
  readonly signal?: AbortSignal | undefined;
  readonly timeoutMs?: number | undefined;
}

/**
 * One request and its whole answer through the pool's dispatcher: the body's chunks are
 * kept as they arrive and joined once at the end, with no response stream in between. A
 * stop that comes while the request still waits in the pool's queue aborts it as soon as
 * it leaves the queue; the promise rejects at once.
 */
function dispatchWhole(pool: Pool, path: string, header: RawHeaders, body: Uint8Array, stop: ExchangeStop): Promise<RawAnswer> {
  const { signal } = stop;
  return new Promise<RawAnswer>((resolve, reject) => {
    if (signal?.aborted) {
      reject(transportError(signal.reason, signal));
      return;
    }
    let status = 0;
    let answerHeader: RawHeaders = {};
    const chunks: Buffer[] = [];
    let size = 0;
    let controller: Dispatcher.DispatchController | undefined;
    let stoppedBy: Error | undefined;
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (settle: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      settle();
    };
    const halt = (reason: Error) => {
      stoppedBy ??= reason;
      controller?.abort(reason);
      finish(() => reject(transportError(reason, signal)));
    };
    function onAbort() {
      halt(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    const ms = stop.timeoutMs;
    if (ms !== undefined) timer = setTimeout(() => halt(new DeadlineError(ms)), ms);
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (stoppedBy) c.abort(stoppedBy);
      },
      onResponseStart(_c, statusCode, headers) {
        status = statusCode;
        answerHeader = headers;
      },
      onResponseData(_c, chunk) {
        chunks.push(chunk);
        size += chunk.byteLength;
      },
      onResponseEnd() {
        const whole = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
        finish(() => resolve({ status, header: answerHeader, body: new Uint8Array(whole.buffer, whole.byteOffset, whole.byteLength) }));
      },
      onResponseError(_c, error) {
        finish(() => reject(transportError(error, signal)));
      },
    };
    pool.dispatch({ path, method: 'POST', headers: header, body }, handler);
  });
}

/** The exchange's own deadline passed. */
class DeadlineError extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = 'DeadlineError';
  }
}

/** Path and query of an absolute URL. */
function pathOf(url: string): string {
  let path = pathsOfUrls.get(url);
  if (path === undefined) {
    const u = new URL(url);
    path = u.pathname + u.search;
    if (pathsOfUrls.size < 4096) pathsOfUrls.set(url, path);
  }
  return path;
}

/** The method URLs a client calls are few: each is parsed once. */
const pathsOfUrls = new Map<string, string>();

async function* readBody(
  body: AsyncIterable<Uint8Array>,
  httpTrailers: Record<string, string>,
  trailer: Headers,
  signal: AbortSignal | undefined,
): AsyncIterable<Uint8Array> {
  try {
    yield* wholeEnvelopes(body);
  } catch (e) {
    throw transportError(e, signal);
  }
  for (const [k, v] of Object.entries(httpTrailers)) trailer.set(k, v);
}

/**
 * Regroups the body's chunks into whole gRPC-web envelopes (5-byte header, then the
 * length it gives), each yielded as soon as its last byte arrives; what is left at the
 * end is yielded as it is. connect-es joins the chunks of an envelope by copying the
 * bytes so far at every chunk, quadratic in the size of a message (seconds for 16 MB in
 * 64 KB chunks). Here each byte is copied once.
 */
export async function* wholeEnvelopes(chunks: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  let pending: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    pending.push(chunk);
    size += chunk.byteLength;
    for (;;) {
      const need = envelopeSize(pending, size);
      if (need === undefined || size < need) break;
      const joined = pending.length === 1 ? (pending[0] as Uint8Array) : Buffer.concat(pending, size);
      yield joined.subarray(0, need);
      pending = need < size ? [joined.subarray(need)] : [];
      size -= need;
    }
  }
  if (size > 0) yield pending.length === 1 ? (pending[0] as Uint8Array) : Buffer.concat(pending, size);
}

/** Header plus payload length of the envelope starting the pending bytes; undefined until 5 bytes arrived. */
function envelopeSize(pending: readonly Uint8Array[], size: number): number | undefined {
  if (size < 5) return undefined;
  const head = new Uint8Array(5);
  let filled = 0;
  for (const part of pending) {
    const take = Math.min(5 - filled, part.byteLength);
    head.set(part.subarray(0, take), filled);
    filled += take;
    if (filled === 5) break;
  }
  return 5 + new DataView(head.buffer).getUint32(1);
}

async function collect(body: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const part of body) parts.push(part);
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

function toWebHeaders(headers: RawHeaders): Headers {
  const out = new Headers();
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    for (const item of Array.isArray(v) ? v : [v]) out.append(k, item);
  }
  return out;
}

/**
 * Aborts keep the reason connect-es put on the signal (deadline, cancellation), the
 * exchange's own deadline is DEADLINE_EXCEEDED; every other failure to exchange bytes with the server (refused, reset, closed) is Unavailable.
 */
function transportError(e: unknown, signal: AbortSignal | undefined): ConnectError {
  if (e instanceof ConnectError) return e;
  if (e instanceof DeadlineError) return new ConnectError(e.message, Code.DeadlineExceeded);
  if (signal?.aborted) return ConnectError.from(signal.reason, Code.Canceled);
  const code = errorCode(e);
  const text = errorMessage(e);
  return new ConnectError(code ? `${text} (${code})` : text, Code.Unavailable, undefined, undefined, e);
}

function errorCode(e: unknown): string | undefined {
  for (let cur: unknown = e, depth = 0; cur instanceof Error && depth < 4; cur = cur.cause, depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}
