/**
 * The dashboard over HTTP, mountable under any server: the page's files, a JSON API, a
 * stream of server-sent events, and actions that need the token. Without a token the
 * dashboard is read-only; every action taken is logged and told to the source.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeFailure } from './failure-text';
import { dashboardHub, type DashboardHub } from './hub';
import { loadPageFiles, type PageFile } from './page-files';
import type { DashboardSource, RolloutTarget } from './source';
import { pageSnapshot } from './updates';
import type { ActionResult, DashboardUpdate } from './view';

export interface DashboardHandlerOptions {
  /** The token actions need (sent as `Authorization: Bearer TOKEN`); none: read-only. */
  readonly token?: string;
  /** Where the handler is mounted, e.g. `/dashboard` (default: the root). */
  readonly basePath?: string;
  /** Writes one line per action taken (default: nowhere). */
  readonly log?: (line: string) => void;
  /** The page's built files (default: dist/dashboard/page). */
  readonly pageFiles?: ReadonlyMap<string, PageFile>;
  /** Seconds between keep-alive comments on an event stream (default 15). */
  readonly keepAliveSeconds?: number;
}

/** Handles a request; false when its path is not the dashboard's (the host server goes on). */
export type DashboardHandler = ((req: IncomingMessage, res: ServerResponse) => Promise<boolean>) & {
  readonly hub: DashboardHub;
  /** Ends every event stream and stops following the source. */
  close(): void;
};

const HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
};

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...HEADERS,
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Whether the request carries the token (compared in constant time). */
function authorized(req: IncomingMessage, token: string): boolean {
  const header = req.headers.authorization ?? '';
  const match = /^Bearer\s+(.+)$/i.exec(header);
  return match !== null && timingSafeEqual(digest(match[1]?.trim() ?? ''), digest(token));
}

async function readBody(req: IncomingMessage, limit = 64 * 1024): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new RequestError(413, 'the request body is too large');
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new RequestError(400, 'the request body is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new RequestError(400, 'the request body must be a JSON object');
  return parsed as Record<string, unknown>;
}

class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function stackOf(body: Record<string, unknown>): string {
  const stack = body.stack;
  if (typeof stack !== 'string' || stack === '')
    throw new RequestError(400, 'field "stack" is missing: name the stack, e.g. {"stack":"fleet"}');
  return stack;
}

function rolloutTarget(body: Record<string, unknown>): RolloutTarget {
  const rollout = body.rollout;
  if (rollout !== undefined && (typeof rollout !== 'string' || rollout === ''))
    throw new RequestError(400, 'field "rollout" must be the name of a fragment rollout');
  return { stack: stackOf(body), ...(typeof rollout === 'string' ? { rollout } : {}) };
}

type ActionName = 'abort' | 'resume' | 'approve' | 'heal';

/** The action a POST path names, and how the source takes it (undefined: the source cannot). */
function actionFor(source: DashboardSource, name: ActionName): ((body: Record<string, unknown>) => Promise<ActionResult>) | undefined {
  switch (name) {
    case 'abort':
      return source.abortRollout ? (b) => source.abortRollout!(rolloutTarget(b)) : undefined;
    case 'resume':
      return source.resumeRollout ? (b) => source.resumeRollout!(rolloutTarget(b)) : undefined;
    case 'approve':
      return source.approve ? (b) => source.approve!(stackOf(b)) : undefined;
    case 'heal':
      return source.healNow ? () => source.healNow!() : undefined;
  }
}

const ACTION_PATHS: Readonly<Record<string, ActionName>> = {
  'api/actions/abort': 'abort',
  'api/actions/resume': 'resume',
  'api/actions/approve': 'approve',
  'api/actions/heal': 'heal',
};

function describeAction(name: ActionName, body: Record<string, unknown>): string {
  const target = [
    typeof body.stack === 'string' ? `stack ${body.stack}` : '',
    typeof body.rollout === 'string' ? `rollout ${body.rollout}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return `${name}${target ? ` (${target})` : ''}`;
}

export function dashboardHandler(source: DashboardSource, options: DashboardHandlerOptions = {}): DashboardHandler {
  const base = (options.basePath ?? '').replace(/\/+$/, '');
  const files = options.pageFiles ?? loadPageFiles();
  const hub = dashboardHub(source);
  // The first reading is read and encoded now, so the first page opened does not wait for it (a failure is told to that page).
  void hub.current().then(pageSnapshot, () => undefined);
  const streams = new Set<ServerResponse>();
  const keepAliveMs = (options.keepAliveSeconds ?? 15) * 1000;

  /**
   * The snapshot first (as pages read it, numbered with the last update it includes), then
   * the updates after it as they come, each with its number as the event id. Updates sent
   * while the snapshot is read wait and go out after it when they are newer.
   */
  const stream = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    res.writeHead(200, {
      ...HEADERS,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    const write = (u: DashboardUpdate, version: number): boolean =>
      res.write(`id: ${version}\nevent: ${u.type}\ndata: ${JSON.stringify(u)}\n\n`);
    let waiting: Array<[DashboardUpdate, number]> | undefined = [];
    const stop = hub.watch((u, version) => (waiting ? waiting.push([u, version]) : write(u, version)));
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), keepAliveMs);
    const end = (): void => {
      stop();
      clearInterval(keepAlive);
      streams.delete(res);
    };
    streams.add(res);
    req.on('close', end);
    res.on('close', end);
    try {
      const first = await hub.current();
      const version = first.version ?? 0;
      write({ type: 'snapshot', snapshot: pageSnapshot(first) }, version);
      for (const [u, v] of waiting) if (v > version) write(u, v);
    } catch (err) {
      res.write(`event: failure\ndata: ${JSON.stringify({ message: describeFailure(err) })}\n\n`);
    }
    waiting = undefined;
  };

  const act = async (name: ActionName, req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (options.token === undefined) {
      sendJson(res, 403, { ok: false, message: 'this dashboard is read-only: it was started without a token' });
      return;
    }
    if (!authorized(req, options.token)) {
      sendJson(res, 401, { ok: false, message: 'the token is missing or wrong: send it as `Authorization: Bearer TOKEN`' });
      return;
    }
    const run = actionFor(source, name);
    if (!run) {
      sendJson(res, 501, { ok: false, message: `this dashboard's source (${(await hub.current()).source}) cannot ${name}` });
      return;
    }
    const body = await readBody(req);
    const what = describeAction(name, body);
    let result: ActionResult;
    try {
      result = await run(body);
    } catch (err) {
      if (err instanceof RequestError) throw err;
      result = { ok: false, message: describeFailure(err) };
    }
    const event = {
      kind: 'action',
      level: result.ok ? 'info' : 'error',
      message: `${what}: ${result.message}`,
      ...(typeof body.stack === 'string' ? { stack: body.stack } : {}),
    } as const;
    hub.record(event);
    options.log?.(`dashboard action ${event.message}`);
    source.notify?.(event);
    sendJson(res, result.ok ? 200 : 409, result);
  };

  const route = async (req: IncomingMessage, res: ServerResponse, rel: string): Promise<void> => {
    const method = req.method ?? 'GET';
    const action = ACTION_PATHS[rel];
    if (action) {
      if (method !== 'POST') throw new RequestError(405, `${rel} takes POST`);
      await act(action, req, res);
      return;
    }
    if (method !== 'GET' && method !== 'HEAD') throw new RequestError(405, `${method} is not served here`);
    if (rel === 'api/snapshot') return sendJson(res, 200, pageSnapshot(await hub.current()));
    if (rel === 'api/events') return stream(req, res);
    if (rel === 'api/token') {
      // Lets the page check a token before it offers actions.
      if (options.token === undefined)
        return sendJson(res, 403, { ok: false, message: 'this dashboard is read-only: it was started without a token' });
      return authorized(req, options.token)
        ? sendJson(res, 200, { ok: true, message: 'the token is right' })
        : sendJson(res, 401, { ok: false, message: 'the token is wrong' });
    }
    if (rel.startsWith('api/machines/')) {
      const key = decodeURIComponent(rel.slice('api/machines/'.length));
      const detail = await source.machine(key);
      return detail ? sendJson(res, 200, detail) : sendJson(res, 404, { ok: false, message: `no machine ${key}` });
    }
    const file = files.get(rel === '' ? 'index.html' : rel);
    if (!file) throw new RequestError(404, `not found: ${rel}`);
    res.writeHead(200, { ...HEADERS, 'content-type': file.contentType, 'content-length': file.body.length, 'cache-control': 'no-cache' });
    res.end(method === 'HEAD' ? undefined : file.body);
  };

  const handler = async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const url = new URL(req.url ?? '/', 'http://dashboard.invalid');
    const pathname = url.pathname;
    if (base !== '' && pathname === base) {
      res.writeHead(308, { location: `${base}/` });
      res.end();
      return true;
    }
    if (!pathname.startsWith(`${base}/`)) return false;
    const rel = pathname.slice(base.length + 1);
    try {
      await route(req, res, rel);
    } catch (err) {
      if (res.headersSent) res.end();
      else if (err instanceof RequestError) sendJson(res, err.status, { ok: false, message: err.message });
      else sendJson(res, 500, { ok: false, message: describeFailure(err) });
    }
    return true;
  };
  return Object.assign(handler, {
    hub,
    close() {
      hub.close();
      for (const res of streams) res.end();
      streams.clear();
    },
  });
}
