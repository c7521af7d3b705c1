/**
 * The two wire transports of the client:
 * - `grpc-web`: binary gRPC-web over HTTP/1.1 through an undici pool of at most
 *   `maxConnections` keep-alive connections (what the official SDK speaks by default);
 * - `grpc`: gRPC over HTTP/2 (h2c for `http://`) through connect-node's session manager;
 *   one connection multiplexes every call, so `maxConnections` does not apply, and the
 *   server's SETTINGS_MAX_CONCURRENT_STREAMS (the emulator's 100) bounds the calls in
 *   flight on that one connection. A plan's read limit above that bound is
 *   reached only over `grpc-web`, whose pool the CLI sizes to `--read-parallelism`.
 * Responses are gzip-compressed by the server only when `compression` is `gzip`; requests
 * are never compressed (they are small). connect-node (HTTP/2, gzip) is loaded only by a
 * transport that uses it: a command talking gRPC-web to a service on this host never pays
 * for loading it (and the copy of undici it brings).
 */
import type { Interceptor, Transport } from '@connectrpc/connect';
import { createTransport as createGrpcWebProtocolTransport } from '@connectrpc/connect/protocol-grpc-web';
import { createGrpcWebUnaryTransport } from './grpc-web-unary';
import { createPlainUnary, type PlainUnary } from './plain-unary';
import { createUndiciHttpClient } from './undici-http-client';

/** Wire protocol of the client. */
export type TransportKind = 'grpc-web' | 'grpc';

/** Whether to ask the server for gzip-compressed responses. */
export type ResponseCompression = 'gzip' | 'none';

/**
 * `gzip` for a remote service, `none` for one on this host: on loopback, compressing
 * costs both ends CPU and saves no time (measured in bench/: about 8% of the emulator's
 * time per part read went to gzip).
 */
export function defaultCompression(baseUrl: string): ResponseCompression {
  const host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '');
  const loopback = host === 'localhost' || host === '::1' || /^127(?:\.\d{1,3}){3}$/.test(host);
  return loopback ? 'none' : 'gzip';
}

/** Options of {@link createClientTransport}. */
export interface ClientTransportOptions {
  readonly baseUrl: string;
  readonly kind: TransportKind;
  /** HTTP/1.1 connections at most (gRPC-web only). */
  readonly maxConnections: number;
  /** Deadline of a call that sets none itself. */
  readonly defaultTimeoutMs: number;
  readonly interceptors: Interceptor[];
  readonly compression: ResponseCompression;
}

/** A transport with the means to release its connections. */
export interface ClientTransport {
  readonly transport: Transport;
  /**
   * Plain calls (gRPC-web only) through the same pool, carrying the token `token` gives;
   * undefined over HTTP/2.
   */
  readonly plainUnary?: (token: () => string | undefined) => PlainUnary;
  /** Open connections now (HTTP/1.1 pool size, or 0/1 for HTTP/2). */
  connections(): number;
  close(): Promise<void>;
}

const MAX_BYTES = 0xffffffff;

function connectNode(): typeof import('@connectrpc/connect-node') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the transports that use it, synchronously
  return require('@connectrpc/connect-node') as typeof import('@connectrpc/connect-node');
}

/** Creates the transport for `kind`. No connection is opened before the first call. */
export function createClientTransport(o: ClientTransportOptions): ClientTransport {
  const acceptCompression = o.compression === 'gzip' ? [connectNode().compressionGzip] : [];
  if (o.kind === 'grpc') {
    const { createGrpcTransport, Http2SessionManager } = connectNode();
    const sessionManager = new Http2SessionManager(o.baseUrl);
    const transport = createGrpcTransport({
      httpVersion: '2',
      baseUrl: o.baseUrl,
      sessionManager,
      acceptCompression,
      interceptors: o.interceptors,
      defaultTimeoutMs: o.defaultTimeoutMs,
    });
    return {
      transport,
      connections: () => (['open', 'idle', 'verifying'].includes(sessionManager.state()) ? 1 : 0),
      close: async () => sessionManager.abort(),
    };
  }
  const http = createUndiciHttpClient(o.baseUrl, { connections: o.maxConnections });
  const streaming = createGrpcWebProtocolTransport({
    httpClient: http.httpClient,
    baseUrl: o.baseUrl,
    useBinaryFormat: true,
    interceptors: o.interceptors,
    acceptCompression,
    sendCompression: null,
    compressMinBytes: 1024,
    readMaxBytes: MAX_BYTES,
    writeMaxBytes: MAX_BYTES,
    defaultTimeoutMs: o.defaultTimeoutMs,
  });
  const transport = createGrpcWebUnaryTransport({
    baseUrl: o.baseUrl,
    exchange: http.exchange,
    streaming,
    interceptors: o.interceptors,
    acceptCompression,
    defaultTimeoutMs: o.defaultTimeoutMs,
  });
  return {
    transport,
    plainUnary: (token) =>
      createPlainUnary({ baseUrl: o.baseUrl, exchange: http.rawExchange, token, acceptCompression, timeoutMs: o.defaultTimeoutMs }),
    connections: () => http.stats().connected,
    close: () => http.close(),
  };
}
