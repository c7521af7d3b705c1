/**
 * One plain-HTTP port for every protocol. Node's cleartext HTTP/2 server does not fall back
 * to HTTP/1.1 (`allowHTTP1` only works with TLS, through ALPN; measured on Node 20), so the
 * listener reads the first bytes of each connection: the HTTP/2 connection preface
 * (`PRI * HTTP/2.0`) goes to an HTTP/2 server (gRPC over h2c, Connect, gRPC-web), anything
 * else to an HTTP/1.1 server (gRPC-web and Connect JSON, e.g. from fetch or curl).
 */
import * as http from 'node:http';
import * as http2 from 'node:http2';
import * as net from 'node:net';
import { Duplex } from 'node:stream';
import type { ServerLimits } from './limits';

type Handler = (req: http.IncomingMessage | http2.Http2ServerRequest, res: http.ServerResponse | http2.Http2ServerResponse) => void;

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

/**
 * A socket as a plain duplex stream, so bytes already read from it (the sniffed preface)
 * reach the HTTP/2 session: Node's HTTP/2 reads a net.Socket's handle directly and would
 * skip them.
 */
class SocketStream extends Duplex {
  constructor(private readonly socket: net.Socket) {
    super();
    socket.on('data', (chunk: Buffer) => {
      if (!this.push(chunk)) socket.pause();
    });
    socket.on('end', () => this.push(null));
    socket.on('error', (err) => this.destroy(err));
    socket.on('close', () => this.destroy());
  }
  override _read(): void {
    this.socket.resume();
  }
  override _write(chunk: Buffer, encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    this.socket.write(chunk, encoding, done);
  }
  override _final(done: (err?: Error | null) => void): void {
    this.socket.end();
    done();
  }
  override _destroy(err: Error | null, done: (err: Error | null) => void): void {
    this.socket.destroy();
    done(err);
  }
}

export interface Listener {
  readonly port: number;
  /**
   * Stops accepting connections, lets calls in flight finish (up to `graceMs`), then ends
   * every open connection; resolves once the port is closed.
   */
  close(graceMs?: number): Promise<void>;
}

/** How long close() waits for calls in flight by default. */
export const DEFAULT_GRACE_MS = 2000;

/** Connections the kernel may hold before they are accepted (capped by its somaxconn). */
const ACCEPT_BACKLOG = 4096;

/**
 * Serves `handler` over HTTP/1.1 and cleartext HTTP/2 on one port. A connection must send
 * complete request headers within the header timeout and is closed after the idle timeout
 * without traffic; an HTTP/2 connection may hold at most `maxConcurrentStreams` streams.
 */
export async function listen(handler: Handler, port: number, host: string, limits: ServerLimits): Promise<Listener> {
  let inFlight = 0;
  let drained: (() => void) | undefined;
  const counted: Handler = (req, res) => {
    inFlight += 1;
    res.once('close', () => {
      inFlight -= 1;
      if (inFlight === 0) drained?.();
    });
    handler(req, res);
  };
  const h1 = http.createServer({ headersTimeout: limits.headerTimeoutMs, requestTimeout: 0 }, counted);
  h1.keepAliveTimeout = Math.min(5000, limits.idleTimeoutMs);
  h1.timeout = limits.idleTimeoutMs;
  // Node checks headersTimeout only for connections of servers that listen themselves; the
  // sniffed ones get a deadline of their own for each request's headers.
  const headerDeadlines = new WeakMap<net.Socket, NodeJS.Timeout>();
  const armHeaderDeadline = (socket: net.Socket): void => {
    clearTimeout(headerDeadlines.get(socket));
    headerDeadlines.set(
      socket,
      setTimeout(() => socket.destroy(), limits.headerTimeoutMs),
    );
  };
  h1.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const socket = req.socket;
    clearTimeout(headerDeadlines.get(socket));
    // The next request's headers are awaited once this one's body is all read: an answer sent
    // before its upload ended (a refusal) leaves the rest to closeAfterAnswer, and a deadline
    // armed meanwhile would reset the connection before the client read that answer.
    res.once('finish', () => {
      if (req.complete) {
        if (!socket.destroyed) armHeaderDeadline(socket);
      } else {
        req.once('end', () => {
          if (!socket.destroyed) armHeaderDeadline(socket);
        });
      }
    });
  });
  const h2 = http2.createServer({ settings: { maxConcurrentStreams: limits.maxConcurrentStreams } }, counted);
  const sockets = new Set<net.Socket>();
  const sessions = new Set<http2.Http2Session>();
  h2.on('session', (s) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
    s.setTimeout(limits.idleTimeoutMs, () => s.destroy());
    // Headers of a first stream must be complete in time (HTTP/1.1 has headersTimeout).
    const firstHeaders = setTimeout(() => s.destroy(), limits.headerTimeoutMs);
    s.once('stream', () => clearTimeout(firstHeaders));
    s.once('close', () => clearTimeout(firstHeaders));
  });

  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.setNoDelay(true); // small RPC frames: no Nagle delay
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    // Until the protocol is known: silent or slow connections are dropped.
    const sniffDeadline = setTimeout(() => socket.destroy(), Math.min(limits.headerTimeoutMs, limits.idleTimeoutMs));
    socket.once('close', () => clearTimeout(sniffDeadline));
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      const n = Math.min(head.length, PREFACE.length);
      const isH2 = head.subarray(0, n).equals(PREFACE.subarray(0, n));
      if (isH2 && head.length < PREFACE.length) return; // wait for the whole preface
      socket.off('data', onData);
      clearTimeout(sniffDeadline);
      socket.pause();
      socket.unshift(head);
      if (isH2) {
        h2.emit('connection', new SocketStream(socket));
      } else {
        armHeaderDeadline(socket);
        socket.once('close', () => clearTimeout(headerDeadlines.get(socket)));
        h1.emit('connection', socket);
        socket.resume();
      }
    };
    socket.on('data', onData);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // A burst of new connections waits in the kernel's accept queue while the loop is busy;
    // one that overflows it is dropped by the server, yet looks open to its client.
    server.listen({ port, host, backlog: ACCEPT_BACKLOG }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('listener has no TCP address');

  return {
    port: address.port,
    close: async (graceMs = DEFAULT_GRACE_MS) => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sessions) s.close(); // GOAWAY: no new streams, open ones finish
      h1.closeIdleConnections();
      if (inFlight > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, graceMs);
          drained = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
