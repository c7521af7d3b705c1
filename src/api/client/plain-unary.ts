/**
 * Unary gRPC-web calls taken only in their plain successful shape, for reads made by the
 * thousand (a drift check's part versions): the request's header is built once per access
 * token, the answer's header is never turned into web Headers, and the body is taken apart
 * in place. An answer is taken when it is HTTP 200 with a gRPC-web content type, no status
 * in its header, one message envelope (compressed only with an encoding the call accepts)
 * and then one trailer envelope whose `grpc-status` is 0. Anything else (an error status,
 * an odd envelope, a message that does not parse, a failed connection, the deadline)
 * declines: the call answers `undefined` and the caller makes it again through the regular
 * transport, so errors, retries, re-authentication and their messages keep one
 * implementation. A read the service fails thus costs one more request, and a service
 * that never answers makes the caller wait one deadline more.
 */
import type { Message, MethodInfo, PartialMessage, ServiceType } from '@bufbuild/protobuf';
import { compressedFlag, createMethodUrl, encodeEnvelope, envelopeDecompress, type Compression } from '@connectrpc/connect/protocol';
import { requestHeaderWithCompression, trailerFlag } from '@connectrpc/connect/protocol-grpc-web';
import type { RawAnswer, RawExchange } from './undici-http-client';

/** What plain calls are made with. */
export interface PlainUnaryOptions {
  readonly baseUrl: string;
  readonly exchange: RawExchange;
  /** The access token the regular calls carry now; undefined while there is none. */
  readonly token: () => string | undefined;
  /** Response encodings the calls accept (as the regular transport's). */
  readonly acceptCompression: readonly Compression[];
  /** Deadline of each call, sent as `grpc-timeout` and kept by the exchange. */
  readonly timeoutMs: number;
}

/** One method's plain call: its answer, or undefined when the regular path must make the call. */
export type PlainCall<I extends Message<I>, O extends Message<O>> = (input: PartialMessage<I>) => Promise<O | undefined>;

/** Binds plain calls to one method each. */
export type PlainUnary = <I extends Message<I>, O extends Message<O>>(service: ServiceType, method: MethodInfo<I, O>) => PlainCall<I, O>;

const MAX_MESSAGE_BYTES = 0xffffffff;
const CONTENT_TYPES: ReadonlySet<string> = new Set(['application/grpc-web', 'application/grpc-web+proto']);

/** Plain calls over `o.exchange`. */
export function createPlainUnary(o: PlainUnaryOptions): PlainUnary {
  const header = headerPerToken(o);
  return <I extends Message<I>, O extends Message<O>>(service: ServiceType, method: MethodInfo<I, O>): PlainCall<I, O> => {
    const path = new URL(createMethodUrl(o.baseUrl, service, method)).pathname;
    return async (input) => {
      const sent = header();
      if (sent === undefined) return undefined;
      const body = encodeEnvelope(0, new method.I(input).toBinary());
      let answer: RawAnswer;
      try {
        answer = await o.exchange(path, sent, body, o.timeoutMs);
      } catch {
        return undefined;
      }
      const bytes = await plainMessage(answer, o.acceptCompression);
      return bytes === undefined ? undefined : parsed(method, bytes);
    };
  };
}

/** The request header of the current token, built again only when the token changes. */
function headerPerToken(o: PlainUnaryOptions): () => Readonly<Record<string, string>> | undefined {
  let builtFor: string | undefined;
  let built: Readonly<Record<string, string>> = {};
  return () => {
    const token = o.token();
    if (token === undefined) return undefined;
    if (token !== builtFor) {
      const header = requestHeaderWithCompression(true, o.timeoutMs, undefined, [...o.acceptCompression], null, true);
      header.set('authorization', `Bearer ${token}`);
      built = Object.freeze(Object.fromEntries(header));
      builtFor = token;
    }
    return built;
  };
}

/** The output message's bytes when the answer is the plain successful shape. */
async function plainMessage(answer: RawAnswer, accept: readonly Compression[]): Promise<Uint8Array | undefined> {
  const { status, header, body } = answer;
  if (status !== 200 || header['grpc-status'] !== undefined) return undefined;
  const contentType = header['content-type'];
  if (typeof contentType !== 'string' || !CONTENT_TYPES.has(contentType.toLowerCase())) return undefined;
  const message = envelopeAt(body, 0);
  if (message === undefined || (message.flags & trailerFlag) === trailerFlag) return undefined;
  const trailer = envelopeAt(body, message.end);
  if (trailer === undefined || trailer.flags !== trailerFlag || trailer.end !== body.byteLength) return undefined;
  if (!trailerSaysOk(trailer.data)) return undefined;
  if (message.flags === 0) return message.data;
  if (message.flags !== compressedFlag) return undefined;
  const compression = answerCompression(header['grpc-encoding'], accept);
  if (compression === undefined) return undefined;
  try {
    return (await envelopeDecompress({ flags: message.flags, data: message.data }, compression, MAX_MESSAGE_BYTES)).data;
  } catch {
    return undefined;
  }
}

/** The encoding the answer names, when the call accepts it. */
function answerCompression(encoding: string | string[] | undefined, accept: readonly Compression[]): Compression | undefined {
  return typeof encoding === 'string' ? accept.find((c) => c.name === encoding) : undefined;
}

/** The envelope starting at `at`: its flags, payload and where it ends; undefined when the bytes are short. */
function envelopeAt(body: Uint8Array, at: number): { flags: number; data: Uint8Array; end: number } | undefined {
  if (body.byteLength - at < 5) return undefined;
  const end = at + 5 + uint32At(body, at + 1);
  if (end > body.byteLength) return undefined;
  return { flags: body[at] as number, data: body.subarray(at + 5, end), end };
}

/** The big-endian unsigned 32-bit number at `at`. */
function uint32At(bytes: Uint8Array, at: number): number {
  return (
    (bytes[at] as number) * 0x1000000 + (((bytes[at + 1] as number) << 16) | ((bytes[at + 2] as number) << 8) | (bytes[at + 3] as number))
  );
}

/** Whether the trailer's lines give `grpc-status: 0` and no other status. */
function trailerSaysOk(bytes: Uint8Array): boolean {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  let ok = false;
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon < 0 || line.slice(0, colon).trim().toLowerCase() !== 'grpc-status') continue;
    if (line.slice(colon + 1).trim() !== '0') return false;
    ok = true;
  }
  return ok;
}

function parsed<I extends Message<I>, O extends Message<O>>(method: MethodInfo<I, O>, bytes: Uint8Array): O | undefined {
  try {
    return method.O.fromBinary(bytes);
  } catch {
    return undefined;
  }
}
