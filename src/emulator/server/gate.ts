/**
 * The emulator's request handler: connect-es routes behind a gate that answers from the
 * headers alone whenever it can. A request for an unknown path, without valid credentials,
 * or announcing a body over the message limit is answered before one byte of its body is
 * read, decompressed or decoded; connect-es then enforces the limit on the compressed and
 * the decompressed size while reading. A request body that cannot be decoded is the
 * caller's fault (invalid_argument), never an internal error.
 */
import type * as http from 'node:http';
import { BinaryReader, MethodKind, type JsonReadOptions } from '@bufbuild/protobuf';
import {
  Code,
  ConnectError,
  createConnectRouter,
  type ConnectRouter,
  type ConnectRouterOptions,
  type ContextValues,
  type Interceptor,
} from '@connectrpc/connect';
import {
  compressionBrotli,
  compressionGzip,
  universalRequestFromNodeRequest,
  universalResponseToNodeResponse,
} from '@connectrpc/connect-node';
import type { UniversalServerResponse } from '@connectrpc/connect/protocol';
import { codeToHttpStatus } from '@connectrpc/connect/protocol-connect';
import { MACHINE_HOST_HEADER } from '../../api/services';
import { StructDecodeError } from '../../api/struct-codec';
import { decodePathPart } from '../../domain/http-input';
import type { ServerLimits } from './limits';
import { closeAfterAnswer, resourceExhausted, writeWireError, type NodeRequest, type NodeResponse } from './wire-errors';

export interface GateOptions {
  readonly limits: ServerLimits;
  readonly interceptors: ConnectRouterOptions['interceptors'];
  readonly routes: (router: ConnectRouter) => void;
  /**
   * Checks a call's credentials from its headers alone; throws a ConnectError to refuse it.
   * What it returns (the caller it found) is handed to the handlers as context values.
   */
  readonly authenticate: (serviceTypeName: string, authorization: string | undefined) => ContextValues | undefined;
  /**
   * Services a machine serves itself, reached at `/machines/<part>/<service>/<method>` (a
   * machine's own address on this port): the part is handed to them in the `rpc-host` header.
   */
  readonly machineServices?: readonly string[];
}

/** Where a machine part's own services are: `<emulator url>/machines/<part id>`. */
export const MACHINE_PATH_PREFIX = '/machines/';

/** A path under a machine's address, split into the part and the procedure path; undefined otherwise. */
function machinePath(path: string): { part: string; procedure: string } | undefined {
  if (!path.startsWith(MACHINE_PATH_PREFIX)) return undefined;
  const rest = path.slice(MACHINE_PATH_PREFIX.length);
  const slash = rest.indexOf('/');
  if (slash <= 0) return undefined;
  const part = decodePathPart(rest.slice(0, slash), 'the machine part');
  if (!part.ok) throw new ConnectError(part.message, Code.InvalidArgument);
  return { part: part.value, procedure: rest.slice(slash) };
}

/**
 * Strings of proto3 messages are UTF-8, in binary and in JSON: the service's decoder
 * refuses others (protobuf-es would put U+FFFD in their place).
 */
const UTF8 = new TextDecoder('utf-8', { fatal: true });
const BINARY_OPTIONS = { readerFactory: (bytes: Uint8Array) => new BinaryReader(bytes, UTF8) };
/** connect-es reads `textDecoder` from its JSON options (not in their type); unknown fields are ignored, its default. */
const JSON_OPTIONS: Partial<JsonReadOptions> = Object.assign({ ignoreUnknownFields: true }, { textDecoder: UTF8 });

/** Why the request's authority (Host, or HTTP/2's :authority) cannot make its URL; undefined when it can. */
function authorityProblem(req: NodeRequest): string | undefined {
  const authority = 'authority' in req ? req.authority : req.headers.host;
  if (authority === undefined || authority === '') return 'the request names no host (a Host header)';
  try {
    new URL(req.url ?? '/', `http://${authority}`);
    return undefined;
  } catch {
    return `the request's host ${JSON.stringify(authority.slice(0, 100))} is malformed`;
  }
}

/** A config the service could not decode is the caller's fault, as any undecodable message is. */
const decodeErrorsAsInvalid: Interceptor = (next) => async (req) => {
  try {
    return await next(req);
  } catch (err) {
    if (err instanceof StructDecodeError) throw new ConnectError(err.message, Code.InvalidArgument);
    throw err;
  }
};

/** Answers 200 without credentials while the emulator serves. */
export const HEALTH_PATH = '/healthz';

/** Room for the 5-byte envelope prefix of enveloped protocols on top of the message itself. */
const ENVELOPE_BYTES = 5;

/** connect-es's message for a protobuf body it cannot decode. */
const PARSE_FAILURE = 'parse binary:';

function asInvalid(message: string): string {
  return message.startsWith(PARSE_FAILURE) ? `malformed request message (${message.slice(PARSE_FAILURE.length).trim()})` : message;
}

/** A gRPC status in `headers` saying the body could not be decoded becomes invalid_argument. */
function remapGrpcStatus(headers: Headers | undefined): void {
  if (headers?.get('grpc-status') !== String(Code.Internal)) return;
  const message = decodeURIComponent(headers.get('grpc-message') ?? '');
  if (!message.startsWith(PARSE_FAILURE)) return;
  headers.set('grpc-status', String(Code.InvalidArgument));
  headers.set('grpc-message', encodeURIComponent(asInvalid(message)));
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** Rewrites an envelope holding gRPC-web trailers or a Connect end-of-stream message. */
function remapEnvelope(chunk: Uint8Array): Uint8Array {
  const flags = chunk[0] ?? 0;
  if (chunk.length < ENVELOPE_BYTES || (flags & 0b1000_0010) === 0) return chunk;
  const text = decoder.decode(chunk.subarray(ENVELOPE_BYTES));
  if (!text.includes(PARSE_FAILURE) && !text.includes('parse%20binary')) return chunk;
  let out: string;
  if ((flags & 0b1000_0000) !== 0) {
    const trailers = new Headers();
    for (const line of text.split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) trailers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    }
    remapGrpcStatus(trailers);
    out = [...trailers.entries()].map(([k, v]) => `${k}: ${v}\r\n`).join('');
  } else {
    const end = JSON.parse(text) as { error?: { code?: string; message?: string } };
    if (end.error?.code === 'internal' && end.error.message?.startsWith(PARSE_FAILURE)) {
      end.error = { ...end.error, code: 'invalid_argument', message: asInvalid(end.error.message) };
    }
    out = JSON.stringify(end);
  }
  const payload = encoder.encode(out);
  const env = new Uint8Array(ENVELOPE_BYTES + payload.length);
  env[0] = flags;
  new DataView(env.buffer).setUint32(1, payload.length);
  env.set(payload, ENVELOPE_BYTES);
  return env;
}

async function* remapBody(res: UniversalServerResponse, body: AsyncIterable<Uint8Array>, unaryJson: boolean): AsyncIterable<Uint8Array> {
  for await (const chunk of body) {
    if (unaryJson) {
      const text = decoder.decode(chunk);
      const err = JSON.parse(text) as { code?: string; message?: string };
      if (err.code === 'internal' && err.message?.startsWith(PARSE_FAILURE)) {
        yield encoder.encode(JSON.stringify({ code: 'invalid_argument', message: asInvalid(err.message) }));
        continue;
      }
      yield chunk;
      continue;
    }
    yield remapEnvelope(chunk);
  }
  remapGrpcStatus(res.trailer);
}

/** A response whose "cannot decode the request" errors say invalid_argument in every protocol. */
function withDecodeErrorsAsInvalid(res: UniversalServerResponse): UniversalServerResponse {
  remapGrpcStatus(res.header);
  if (!res.body) return res;
  const contentType = res.header?.get('content-type') ?? '';
  const unaryJsonError = res.status === codeToHttpStatus(Code.Internal) && contentType.startsWith('application/json');
  if (unaryJsonError) {
    res.status = codeToHttpStatus(Code.InvalidArgument);
    res.header?.delete('content-length');
  }
  return { ...res, body: remapBody(res, res.body, unaryJsonError) };
}

function hasEntries(headers: Headers | undefined): boolean {
  if (!headers) return false;
  for (const _ of headers.keys()) return true;
  return false;
}

/**
 * Writes a unary answer over HTTP/1.1 in one piece, headers and body (every gRPC-web or
 * Connect envelope, trailers included) with its length: one write to the socket, where
 * writing envelope by envelope in chunked encoding takes three.
 */
async function writeWhole(answer: UniversalServerResponse, res: http.ServerResponse): Promise<void> {
  const chunks: Uint8Array[] = [];
  if (answer.body) for await (const chunk of answer.body) chunks.push(chunk);
  const body = chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks);
  const headers: Record<string, string> = {};
  answer.header?.forEach((value, key) => (headers[key] = value));
  headers['content-length'] = String(body.byteLength);
  res.writeHead(answer.status, headers);
  res.end(body);
}

export function gatedHandler(options: GateOptions): (req: NodeRequest, res: NodeResponse) => void {
  const router = createConnectRouter({
    interceptors: [decodeErrorsAsInvalid, ...(options.interceptors ?? [])],
    binaryOptions: BINARY_OPTIONS,
    jsonOptions: JSON_OPTIONS,
    readMaxBytes: options.limits.maxMessageBytes,
    acceptCompression: [compressionGzip, compressionBrotli],
  });
  options.routes(router);
  const paths = new Map(router.handlers.map((h) => [h.requestPath, h]));
  const max = options.limits.maxMessageBytes;
  const machineServices = new Set(options.machineServices ?? []);
  const serve = (req: NodeRequest, res: NodeResponse): void => {
    let path = (req.url ?? '').split('?', 2)[0] ?? '';
    const atMachine = machinePath(path);
    if (atMachine) {
      const service = atMachine.procedure.split('/')[1] ?? '';
      if (!machineServices.has(service)) {
        writeWireError(
          req,
          res,
          new ConnectError(`a machine does not serve ${JSON.stringify(atMachine.procedure)}`, Code.Unimplemented),
          options.limits.maxMessageBytes + ENVELOPE_BYTES,
        );
        return;
      }
      path = atMachine.procedure;
      req.url = atMachine.procedure;
      req.headers[MACHINE_HOST_HEADER] = atMachine.part;
    }
    if (path === HEALTH_PATH) {
      (res as http.ServerResponse).writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok\n');
      return;
    }
    const handler = paths.get(path);
    if (!handler) {
      writeWireError(req, res, new ConnectError(`no procedure ${JSON.stringify(req.url)} here`, Code.Unimplemented), max + ENVELOPE_BYTES);
      return;
    }
    let contextValues: ContextValues | undefined;
    try {
      const authorization = req.headers.authorization;
      contextValues = options.authenticate(handler.service.typeName, typeof authorization === 'string' ? authorization : undefined);
      const announced = Number(req.headers['content-length'] ?? 0);
      if (announced > max + ENVELOPE_BYTES) {
        throw resourceExhausted(`request of ${announced} bytes is larger than the message limit of ${max} bytes`);
      }
    } catch (err) {
      writeWireError(req, res, ConnectError.from(err), max + ENVELOPE_BYTES);
      return;
    }
    const badAuthority = authorityProblem(req);
    if (badAuthority) {
      writeWireError(req, res, new ConnectError(badAuthority, Code.InvalidArgument), max + ENVELOPE_BYTES);
      return;
    }
    closeAfterAnswer(req, res, max + ENVELOPE_BYTES);
    const uReq = universalRequestFromNodeRequest(req, res, undefined, contextValues);
    const unaryOverHttp1 = handler.method.kind === MethodKind.Unary && !('stream' in req);
    handler(uReq)
      .then((uRes) => {
        const answer = withDecodeErrorsAsInvalid(uRes);
        return unaryOverHttp1 && !hasEntries(answer.trailer)
          ? writeWhole(answer, res as http.ServerResponse)
          : universalResponseToNodeResponse(answer, res);
      })
      .catch(() => {
        // The client went away mid-answer: nothing is left to tell it.
        if ('stream' in req) req.stream.close();
        else req.socket.destroy();
      });
  };
  return (req, res) => {
    res.setHeader('x-content-type-options', 'nosniff');
    try {
      serve(req, res);
    } catch (err) {
      // Whatever a request holds, it gets an answer in its protocol, never the process's end.
      const refusal = err instanceof ConnectError ? err : new ConnectError('the request could not be served', Code.Internal);
      if (res.headersSent) res.end();
      else writeWireError(req, res, refusal, max + ENVELOPE_BYTES);
    }
  };
}
