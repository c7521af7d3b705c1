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
import type { WholeExchange } from './undici-http-client';
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
}

/** A gRPC-web transport (binary format) whose unary calls read the answer as one buffer. */
export function createGrpcWebUnaryTransport(o: GrpcWebUnaryOptions): Transport {
  const accept = [...o.acceptCompression];
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
      const call = callSignal(signal, timeout);
      const send = async (req: UnaryRequest<I, O>): Promise<UnaryResponse<I, O>> => {
        const answer = await o.exchange(req.url, req.header, encodeEnvelope(0, req.message.toBinary()), req.signal);
        const { compression, headerError } = validateResponseWithCompression(accept, answer.status, answer.header);
        const { message, trailer } = await splitAnswer(answer.body, compression ?? null);
        if (trailer === undefined) {
          if (headerError !== undefined) throw headerError;
          throw new ConnectError('protocol error: missing trailer', answer.header.has('grpc-status') ? Code.Unimplemented : Code.Unknown);
        }
        validateTrailer(trailer, answer.header);
        if (message === undefined)
          throw new ConnectError(
            'protocol error: missing output message for unary method',
            trailer.has('grpc-status') ? Code.Unimplemented : Code.Unknown,
          );
        return { stream: false, service, method, header: answer.header, message: parseOutput(method, message), trailer };
      };
      const next = withInterceptors(send, o.interceptors);
      try {
        return await next({
          stream: false,
          service,
          method,
          url: createMethodUrl(o.baseUrl, service, method),
          init: {},
          header: requestHeaderWithCompression(true, timeout, header, accept, null, true),
          contextValues: contextValues ?? createContextValues(),
          message: input instanceof method.I ? input : new method.I(input),
          signal: call.signal,
        });
      } catch (e) {
        throw call.failure(e);
      } finally {
        call.finish();
      }
    },
  };
}

/**
 * The signal of one call: aborted by the caller's signal or at the deadline, whose
 * reason is DEADLINE_EXCEEDED. Finishing only clears the timer and the listener.
 */
function callSignal(outer: AbortSignal | undefined, timeoutMs: number | undefined) {
  const controller = new AbortController();
  let deadlinePassed = false;
  const onOuterAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) onOuterAbort();
  else outer?.addEventListener('abort', onOuterAbort);
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          deadlinePassed = true;
          controller.abort(new ConnectError('the operation timed out', Code.DeadlineExceeded));
        }, timeoutMs);
  return {
    signal: controller.signal,
    failure(e: unknown): ConnectError {
      const error = ConnectError.from(deadlinePassed ? controller.signal.reason : e);
      if (!controller.signal.aborted) controller.abort(error);
      return error;
    },
    finish(): void {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuterAbort);
    },
  };
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

/** The output message's bytes and the trailer of a whole gRPC-web response body. */
async function splitAnswer(body: Uint8Array, compression: Compression | null): Promise<{ message?: Uint8Array; trailer?: Headers }> {
  let message: Uint8Array | undefined;
  let trailer: Headers | undefined;
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
      trailer = trailerParse(envelope.data);
    } else {
      if (message !== undefined)
        throw new ConnectError('protocol error: received extra output message for unary method', Code.Unimplemented);
      message = envelope.data;
    }
    at = end;
  }
  return { ...(message !== undefined ? { message } : {}), ...(trailer !== undefined ? { trailer } : {}) };
}
