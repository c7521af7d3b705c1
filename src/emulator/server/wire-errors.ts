/**
 * Answers a request with a status error in its own protocol without reading its body:
 * gRPC with its status in trailers, gRPC-web in a trailer message, Connect unary as a JSON error with the
 * matching HTTP status, Connect streaming as an end-of-stream message.
 */
import type * as http from 'node:http';
import type * as http2 from 'node:http2';
import { Code, ConnectError } from '@connectrpc/connect';
import { codeToHttpStatus, codeToString } from '@connectrpc/connect/protocol-connect';

export type NodeRequest = http.IncomingMessage | http2.Http2ServerRequest;
export type NodeResponse = http.ServerResponse | http2.Http2ServerResponse;

export type WireProtocol = 'grpc' | 'grpc-web' | 'connect-unary' | 'connect-stream';

/** The protocol a request speaks, from its content type. */
export function protocolOf(contentType: string | undefined): WireProtocol {
  const type = (contentType ?? '').toLowerCase();
  if (type.startsWith('application/grpc-web')) return 'grpc-web';
  if (type.startsWith('application/grpc')) return 'grpc';
  if (type.startsWith('application/connect+')) return 'connect-stream';
  return 'connect-unary';
}

function errorJson(err: ConnectError): { code: string; message: string } {
  return { code: codeToString(err.code), message: err.rawMessage };
}

/** An envelope: flags, big-endian length, payload. */
function envelope(flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt8(flags, 0);
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

/** Writes `err` and closes the request without consuming the rest of its body. */
export function writeWireError(req: NodeRequest, res: NodeResponse, err: ConnectError, discardLimit: number): void {
  const protocol = protocolOf(req.headers['content-type']);
  const headers: Record<string, string> = {};
  let httpStatus = 200;
  let body: Buffer | undefined;
  let trailers: Record<string, string> | undefined;
  const status = { 'grpc-status': String(err.code), 'grpc-message': encodeURIComponent(err.rawMessage) };
  if (protocol === 'grpc') {
    headers['content-type'] = req.headers['content-type'] ?? 'application/grpc+proto';
    trailers = status;
  } else if (protocol === 'grpc-web') {
    headers['content-type'] = req.headers['content-type'] ?? 'application/grpc-web+proto';
    const text = Object.entries(status)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    body = envelope(0b1000_0000, Buffer.from(text));
  } else if (protocol === 'connect-stream') {
    headers['content-type'] = 'application/connect+json';
    body = envelope(0b10, Buffer.from(JSON.stringify({ error: errorJson(err) })));
  } else {
    httpStatus = codeToHttpStatus(err.code);
    headers['content-type'] = 'application/json';
    body = Buffer.from(JSON.stringify(errorJson(err)));
  }
  closeAfterAnswer(req, res, discardLimit);
  (res as http.ServerResponse).writeHead(httpStatus, headers);
  if (trailers) (res as http.ServerResponse).addTrailers(trailers);
  if (body) res.end(body);
  else res.end();
}

/** How long a connection whose upload was cut stays half-closed for the client to read its answer. */
const LINGER_MS = 5000;

/**
 * Once the answer is out, the unread rest of the body is discarded as it arrives (never
 * decompressed or decoded); past `discardLimit` bytes the stream (HTTP/2) is reset, or the
 * connection (HTTP/1.1) stops being read and is closed gracefully, then for good after a
 * linger. Closing a connection with unread input resets it, and a client that had not yet
 * read its answer would lose it.
 */
export function closeAfterAnswer(req: NodeRequest, res: NodeResponse, discardLimit: number): void {
  res.once('finish', () => {
    if (req.complete) return;
    let discarded = 0;
    const discard = (chunk: Buffer): void => {
      discarded += chunk.length;
      if (discarded <= discardLimit) return;
      req.off('data', discard);
      if ('stream' in req) req.stream.close();
      else lingerThenClose(req);
    };
    req.on('data', discard);
    req.resume();
  });
}

/** Stops reading an HTTP/1.1 upload, sends the end of the connection, and destroys it after `LINGER_MS`. */
function lingerThenClose(req: http.IncomingMessage): void {
  const socket = req.socket;
  req.pause();
  socket.pause();
  socket.end();
  // The server's idle timeout would reset it while the client reads; the linger bounds it instead.
  socket.setTimeout(0);
  const deadline = setTimeout(() => socket.destroy(), LINGER_MS);
  deadline.unref();
  socket.once('close', () => clearTimeout(deadline));
}

/** A status error of one of the emulator's gate checks. */
export const resourceExhausted = (message: string): ConnectError => new ConnectError(message, Code.ResourceExhausted);
