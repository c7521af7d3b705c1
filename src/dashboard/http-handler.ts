/**
 * The dashboard over HTTP, mountable under any server: the page's files, a JSON API, a
 * stream of server-sent events, and actions that need the token. Every route answers by
 * the access rule of src/domain/http-access.ts (an allowed Host, no foreign Origin; actions
 * the token and JSON). Without a token the dashboard is read-only; every action taken is
 * logged and told to the source.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { accessPolicy, type AccessSettings, type RouteClass } from '../domain/http-access';
import { decodePathPart, targetPath } from '../domain/http-input';
import { describeFailure } from './failure-text';
import { PAGE_HEADERS, SECURITY_HEADERS, accessOf, readJsonObject } from './http-edge';
import { dashboardHub, type DashboardHub } from './hub';
import { loadPageFiles, type PageFile } from './page-files';
import type { DashboardSource, RolloutTarget } from './source';
import { pageSnapshot } from './updates';
import type { ActionResult, DashboardUpdate } from './view';

/** Who may do what (the token actions need, sent as `Authorization: Bearer TOKEN`; none: read-only), and where. */
export interface DashboardHandlerOptions extends AccessSettings {
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

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly allow?: string,
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

/** The access class of a path under the dashboard (`rel`: without its base). */
function routeClassOf(rel: string): RouteClass {
  if (ACTION_PATHS[rel]) return 'action';
  return rel.startsWith('api/') ? 'read' : 'page';
}

export function dashboardHandler(source: DashboardSource, options: DashboardHandlerOptions = {}): DashboardHandler {
  const base = (options.basePath ?? '').replace(/\/+$/, '');
  const files = options.pageFiles ?? loadPageFiles();
  const policy = accessPolicy(options);
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
      ...SECURITY_HEADERS,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
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
    const run = actionFor(source, name);
    if (!run) {
      sendJson(res, 501, { ok: false, message: `this dashboard's source (${(await hub.current()).source}) cannot ${name}` });
      return;
    }
    const read = await readJsonObject(req, res);
    if (!read.ok) throw new RequestError(read.status, read.message);
    const body = read.value;
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
    if (action && method !== 'POST') throw new RequestError(405, `${rel} takes POST`, 'POST');
    if (!action && method !== 'GET' && method !== 'HEAD') throw new RequestError(405, `${method} is not served here`, 'GET, HEAD');
    const access = accessOf(req, routeClassOf(rel), policy);
    if (!access.allow) throw new RequestError(access.status, `${access.reason}: ${access.hint}`);
    if (action) return act(action, req, res);
    if (rel === 'api/snapshot') return sendJson(res, 200, pageSnapshot(await hub.current()));
    if (rel === 'api/events') return stream(req, res);
    if (rel === 'api/token') {
      // Lets the page check a token before it offers actions.
      const check = accessOf(req, 'action', policy);
      if (policy.token === undefined)
        return sendJson(res, 403, { ok: false, message: 'this dashboard is read-only: it was started without a token' });
      return check.allow || check.status === 415
        ? sendJson(res, 200, { ok: true, message: 'the token is right' })
        : sendJson(res, 401, { ok: false, message: 'the token is wrong' });
    }
    if (rel === 'api/models') return sendJson(res, 200, { models: source.models ? await source.models() : [] });
    if (rel.startsWith('api/machines/')) {
      const key = decodePathPart(rel.slice('api/machines/'.length), 'the machine key');
      if (!key.ok) throw new RequestError(key.status, key.message);
      const detail = await source.machine(key.value);
      return detail ? sendJson(res, 200, detail) : sendJson(res, 404, { ok: false, message: `no machine ${key.value}` });
    }
    const file = files.get(rel === '' ? 'index.html' : rel);
    if (!file) throw new RequestError(404, `not found: ${rel}`);
    res.writeHead(200, {
      ...PAGE_HEADERS,
      'content-type': file.contentType,
      'content-length': file.body.length,
      'cache-control': 'no-cache',
    });
    res.end(method === 'HEAD' ? undefined : file.body);
  };

  const handler = async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const target = targetPath(req.url);
    const pathname = target.ok ? target.value : '';
    if (base !== '' && pathname === base) {
      res.writeHead(308, { ...SECURITY_HEADERS, location: `${base}/` });
      res.end();
      return true;
    }
    if (!pathname.startsWith(`${base}/`)) return false;
    const rel = pathname.slice(base.length + 1);
    try {
      await route(req, res, rel);
    } catch (err) {
      if (res.headersSent) res.end();
      else if (err instanceof RequestError) {
        if (err.allow) res.setHeader('allow', err.allow);
        sendJson(res, err.status, { ok: false, message: err.message });
      } else sendJson(res, 500, { ok: false, message: describeFailure(err) });
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
