/**
 * A real HTTP/1.1 server on 127.0.0.1 whose gRPC-web answers a test scripts byte for byte,
 * and the envelopes to script them with.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One answer: HTTP status (200), headers beside the gRPC-web content type, body, delay. */
export interface Scripted {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly body?: Buffer;
  /** Waits this long before answering. */
  readonly delayMs?: number;
}

/** A request as the server received it. */
export interface SeenRequest {
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

export interface ScriptedServer {
  readonly url: string;
  /** The requests received since the last reset, in order. */
  readonly seen: SeenRequest[];
  /** How the next requests are answered (an empty 200 until set). */
  answer: (request: SeenRequest) => Scripted;
  /** Forgets the requests seen and answers with an empty 200 again. */
  reset(): void;
  close(): Promise<void>;
}

/** A gRPC-web envelope: flags, then the payload's length and the payload. */
export function frame(flag: number, payload: Uint8Array): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt8(flag, 0);
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

/** A trailer envelope holding `text`'s header lines. */
export const trailer = (text: string): Buffer => frame(0x80, Buffer.from(text));

const GRPC_WEB = { 'content-type': 'application/grpc-web+proto' };

export async function startScriptedServer(): Promise<ScriptedServer> {
  const state: ScriptedServer = {
    url: '',
    seen: [],
    answer: () => ({}),
    reset() {
      state.seen.length = 0;
      state.answer = () => ({});
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      state.seen.push(request);
      const a = state.answer(request);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(a.status ?? 200, { ...GRPC_WEB, ...a.headers });
        res.end(a.body ?? Buffer.alloc(0));
      };
      if (a.delayMs) setTimeout(send, a.delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return Object.assign(state, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
}

/** The URL of a port on 127.0.0.1 that was just closed: nothing answers there. */
export async function closedPortUrl(): Promise<string> {
  const closed = http.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((r) => closed.close(r));
  return `http://127.0.0.1:${port}`;
}
