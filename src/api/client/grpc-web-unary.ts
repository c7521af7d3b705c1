/**
 * Unary gRPC-web calls with the whole request and the whole response in one buffer each.
 * The protocol's rules (request headers, response validation, trailer parsing and status,
 * compression negotiation) are connect-es's own functions; only the plumbing differs from
 * its transport, which passes every call through chains of async iterables and aborts a
 * signal after each success (an `AbortError` built per call). Streaming calls go to the
 * connect-es transport unchanged.
 */
import {
  Code,
  ConnectError,
  createContextValues,
  type ContextValues,
  type Interceptor,
  type Transport,
  type UnaryRequest,
  type UnaryResponse,
} from '@connectrpc/connect';
import { compressedFlag, createMethodUrl, encodeEnvelope, envelopeDecompress, type Compression } from '@connectrpc/connect/protocol';
import {
  requestHeaderWithCompression,
  trailerFlag,
  trailerParse,
  validateResponseWithCompression,
  validateTrailer,
} from '@connectrpc/connect/protocol-grpc-web';
import type { AnyMessage, Message, MethodInfo, PartialMessage, ServiceType } from '@bufbuild/protobuf';
import { AUTH_SERVICE_TYPE_NAME, withBearer, type TokenSource } from './auth';
import { CallLife, DeadlineWheel } from './call-life';
import { toWebHeaders, type WholeAnswer, type WholeExchange } from './undici-http-client';
import { errorMessage } from '../../domain/errors';

/** Options of {@link createGrpcWebUnaryTransport}. */
export interface GrpcWebUnaryOptions {
  readonly baseUrl: string;
  /** Sends one request body and reads the whole answer (the undici pool). */
  readonly exchange: WholeExchange;
  /** Answers streaming calls. */
  readonly streaming: Transport;
  readonly interceptors: readonly Interceptor[];
  readonly acceptCompression: readonly Compression[];
  /** Deadline of a call that sets none; a call's own 0 or less means none. */
  readonly defaultTimeoutMs: number | undefined;
  /** Bearer tokens for every call but AuthService's (re-authenticating once on UNAUTHENTICATED); none: no authorization. */
  readonly tokens?: TokenSource;
}

/** The deadlines of every unary call share one timer. */
const deadlines = new DeadlineWheel();

/** A gRPC-web transport (binary format) whose unary calls read the answer as one buffer. */
export function createGrpcWebUnaryTransport(o: GrpcWebUnaryOptions): Transport {
  const accept = [...o.acceptCompression];
  // The headers every call carries (connect-es's, without a deadline), taken once.
  const constantHeaders = flatHeaders(requestHeaderWithCompression(true, undefined, undefined, accept, null, true));
  const urls = new WeakMap<object, string>();
  return {
    stream: (...args) => o.streaming.stream(...args),
    async unary<I extends Message<I> = AnyMessage, O extends Message<O> = AnyMessage>(
      service: ServiceType,
      method: MethodInfo<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: Parameters<Transport['unary']>[4],
      input: PartialMessage<I>,
      contextValues?: ContextValues,
    ): Promise<UnaryResponse<I, O>> {
      const timeout = timeoutMs === undefined ? o.defaultTimeoutMs : timeoutMs <= 0 ? undefined : timeoutMs;
      const life = new CallLife(signal, timeout, deadlines);
      let url = urls.get(method);
      if (url === undefined) {
        url = createMethodUrl(o.baseUrl, service, method);
        urls.set(method, url);
      }
      const message = input instanceof method.I ? input : new method.I(input);
      const bearer = o.tokens !== undefined && service.typeName !== AUTH_SERVICE_TYPE_NAME ? o.tokens : undefined;
      const exchange = async (requestUrl: string, headers: string[], body: Uint8Array): Promise<UnaryResponse<I, O>> =>
        readAnswer(await o.exchange(requestUrl, headers, body, life), accept, service, method);
      const send = (requestUrl: string, headers: string[], body: Uint8Array): Promise<UnaryResponse<I, O>> =>
        bearer === undefined
          ? exchange(requestUrl, headers, body)
          : withBearer(bearer, (authorization) => exchange(requestUrl, [...headers, 'authorization', authorization], body));
      try {
        if (o.interceptors.length === 0 && header === undefined) {
          const headers = timeout === undefined ? constantHeaders : [...constantHeaders, 'grpc-timeout', `${timeout}m`];
          return await send(url, headers, encodeEnvelope(0, message.toBinary()));
        }
        const next = withInterceptors<I, O>(
          (req) => send(req.url, flatHeaders(req.header), encodeEnvelope(0, req.message.toBinary())),
          o.interceptors,
        );
        return await next({
          stream: false,
          service,
          method,
          url,
          init: {},
          header: requestHeaderWithCompression(true, timeout, header, accept, null, true),
          contextValues: contextValues ?? createContextValues(),
          message,
          signal: life.signal(),
        });
      } catch (e) {
        throw life.failure(e);
      } finally {
        life.finish();
      }
    },
  };
}

/** Names and values of `header`, alternating. */
function flatHeaders(header: Headers): string[] {
  const flat: string[] = [];
  header.forEach((value, name) => flat.push(name, value));
  return flat;
}

/**
 * The call's outcome from its whole answer. An answer whose status, headers and trailer say
 * "OK" plainly is read without web Headers objects (made only if the caller asks for them);
 * any other goes through connect-es's validation for the same errors.
 */
async function readAnswer<I extends Message<I>, O extends Message<O>>(
  answer: WholeAnswer,
  accept: Compression[],
  service: ServiceType,
  method: MethodInfo<I, O>,
): Promise<UnaryResponse<I, O>> {
  let header: Headers | undefined;
  let compression: Compression | null = null;
  let headerError: ConnectError | undefined;
  if (!plainHeaders(answer)) {
    header = toWebHeaders(answer.headers);
    const valid = validateResponseWithCompression(accept, answer.status, header);
    compression = valid.compression ?? null;
    headerError = valid.headerError;
  }
  const { message, trailer } = await splitAnswer(answer.body, compression);
  if (trailer === undefined) {
    if (headerError !== undefined) throw headerError;
    throw new ConnectError(
      'protocol error: missing trailer',
      answer.headers['grpc-status'] !== undefined ? Code.Unimplemented : Code.Unknown,
    );
  }
  const parsedTrailer = header === undefined && trailerSaysOk(trailer) ? undefined : trailerParse(trailer);
  if (parsedTrailer !== undefined) validateTrailer(parsedTrailer, header ?? toWebHeaders(answer.headers));
  if (message === undefined)
    throw new ConnectError(
      'protocol error: missing output message for unary method',
      (parsedTrailer ?? trailerParse(trailer)).has('grpc-status') ? Code.Unimplemented : Code.Unknown,
    );
  return new WholeUnaryResponse(service, method, parseOutput(method, message), answer.headers, trailer, header, parsedTrailer);
}

/** A 2xx answer with no status in its headers and an uncompressed body (what connect-es accepts without a second look). */
function plainHeaders(answer: WholeAnswer): boolean {
  if (answer.status < 200 || answer.status >= 300) return false;
  const h = answer.headers;
  if (h['grpc-status'] !== undefined || h['grpc-status-details-bin'] !== undefined) return false;
  const encoding = h['grpc-encoding'];
  return encoding === undefined || (typeof encoding === 'string' && encoding.toLowerCase() === 'identity');
}

/** Whether a trailer's only status is a single `grpc-status: 0` (no status details). */
function trailerSaysOk(trailer: Uint8Array): boolean {
  const text = Buffer.from(trailer.buffer, trailer.byteOffset, trailer.byteLength).toString('latin1');
  let ok = false;
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (name === 'grpc-status-details-bin') return false;
    if (name !== 'grpc-status') continue;
    if (ok || line.slice(colon + 1).trim() !== '0') return false;
    ok = true;
  }
  return ok;
}

/** A unary response whose header and trailer become web Headers only when read. */
class WholeUnaryResponse<I extends Message<I>, O extends Message<O>> implements UnaryResponse<I, O> {
  readonly stream = false;

  constructor(
    readonly service: ServiceType,
    readonly method: MethodInfo<I, O>,
    readonly message: O,
    private readonly rawHeader: Record<string, string | string[] | undefined>,
    private readonly rawTrailer: Uint8Array,
    private parsedHeader: Headers | undefined,
    private parsedTrailer: Headers | undefined,
  ) {}

  get header(): Headers {
    this.parsedHeader ??= toWebHeaders(this.rawHeader);
    return this.parsedHeader;
  }

  get trailer(): Headers {
    this.parsedTrailer ??= trailerParse(this.rawTrailer);
    return this.parsedTrailer;
  }
}

function parseOutput<I extends Message<I>, O extends Message<O>>(method: MethodInfo<I, O>, bytes: Uint8Array): O {
  try {
    return method.O.fromBinary(bytes);
  } catch (e) {
    throw new ConnectError(`parse binary: ${errorMessage(e)}`, Code.Internal);
  }
}

type UnaryFn<I extends Message<I>, O extends Message<O>> = (req: UnaryRequest<I, O>) => Promise<UnaryResponse<I, O>>;

/** `send` wrapped by the interceptors, the first one outermost (as connect-es orders them). */
function withInterceptors<I extends Message<I>, O extends Message<O>>(
  send: UnaryFn<I, O>,
  interceptors: readonly Interceptor[],
): UnaryFn<I, O> {
  let next = send as unknown as Parameters<Interceptor>[0];
  for (let i = interceptors.length - 1; i >= 0; i--) next = (interceptors[i] as Interceptor)(next);
  return next as unknown as UnaryFn<I, O>;
}

/** The output message's bytes and the trailer's of a whole gRPC-web response body. */
async function splitAnswer(body: Uint8Array, compression: Compression | null): Promise<{ message?: Uint8Array; trailer?: Uint8Array }> {
  let message: Uint8Array | undefined;
  let trailer: Uint8Array | undefined;
  for (let at = 0; at < body.byteLength;) {
    if (body.byteLength - at < 5) throw new ConnectError('protocol error: incomplete envelope', Code.InvalidArgument);
    const flags = body[at] as number;
    const length = new DataView(body.buffer, body.byteOffset + at + 1, 4).getUint32(0);
    const end = at + 5 + length;
    if (end > body.byteLength)
      throw new ConnectError(
        `protocol error: promised ${length} bytes in enveloped message, got ${body.byteLength - at - 5} bytes`,
        Code.InvalidArgument,
      );
    const envelope =
      (flags & compressedFlag) === compressedFlag
        ? await envelopeDecompress({ flags, data: body.subarray(at + 5, end) }, compression, 0xffffffff)
        : { flags, data: body.subarray(at + 5, end) };
    if ((envelope.flags & trailerFlag) === trailerFlag) {
      if (trailer !== undefined) throw new ConnectError('protocol error: received extra trailer', Code.Unimplemented);
      trailer = envelope.data;
    } else {
      if (message !== undefined)
        throw new ConnectError('protocol error: received extra output message for unary method', Code.Unimplemented);
      message = envelope.data;
    }
    at = end;
  }
  return { ...(message !== undefined ? { message } : {}), ...(trailer !== undefined ? { trailer } : {}) };
}
