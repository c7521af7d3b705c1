/**
 * The edge of fleetform's own HTTP servers (the dashboard's and the reconciler's): the
 * facts the access rule decides on, read from a request; its body read within a bound;
 * the headers every answer carries.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decideAccess, type AccessDecision, type AccessPolicy, type Credential, type RouteClass } from '../domain/http-access';
import { jsonObjectBody, type Read } from '../domain/http-input';

/** On every answer: no content sniffing, no referrer, no framing. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};

/** On the dashboard's pages: their own scripts, styles and connections only. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  ...SECURITY_HEADERS,
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
};

/** The largest body an action takes. */
export const BODY_LIMIT = 64 * 1024;

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** What the request's `Authorization: Bearer` holds compared with `token` (in constant time). */
export function credentialOf(req: IncomingMessage, token: string | undefined): Credential {
  const header = req.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(\S.*)$/i.exec(header) : null;
  if (!match) return 'absent';
  if (token === undefined) return 'wrong';
  return timingSafeEqual(digest((match[1] as string).trim()), digest(token)) ? 'right' : 'wrong';
}

const one = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** The access rule's answer for `req` to a route of `routeClass`. */
export function accessOf(req: IncomingMessage, routeClass: RouteClass, policy: AccessPolicy): AccessDecision {
  return decideAccess(
    {
      routeClass,
      host: one(req.headers.host),
      origin: one(req.headers.origin),
      fetchSite: one(req.headers['sec-fetch-site']),
      contentType: one(req.headers['content-type']),
      credential: credentialOf(req, policy.token),
    },
    policy,
  );
}

/** The request's body, up to `limit` bytes (beyond: 413, and the connection closes after the answer). */
export async function readBytes(req: IncomingMessage, res: ServerResponse, limit = BODY_LIMIT): Promise<Read<Uint8Array>> {
  const announced = Number(req.headers['content-length'] ?? 0);
  const tooLarge: Read<never> = { ok: false, status: 413, message: `the request body is larger than ${limit} bytes` };
  if (announced > limit) {
    res.setHeader('connection', 'close');
    return tooLarge;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) {
        res.setHeader('connection', 'close');
        return tooLarge;
      }
      chunks.push(chunk);
    }
  } catch {
    return { ok: false, status: 400, message: 'the request body ended early' };
  }
  return { ok: true, value: Buffer.concat(chunks) };
}

/** The request's body as one JSON object (an empty body: `{}`). */
export async function readJsonObject(
  req: IncomingMessage,
  res: ServerResponse,
  limit = BODY_LIMIT,
): Promise<Read<Record<string, unknown>>> {
  const bytes = await readBytes(req, res, limit);
  return bytes.ok ? jsonObjectBody(bytes.value) : bytes;
}
