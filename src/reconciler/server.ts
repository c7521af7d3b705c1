/**
 * The reconciler's HTTP server (`--listen HOST:PORT`): `/healthz`, `/metrics` (Prometheus),
 * and a small JSON API over the handle: `GET /api/status`, `GET /api/events` (server-sent
 * events, one `ReconcilerEvent` per message), `POST /api/approve/STACK`, `POST /api/heal`,
 * `POST /api/refresh` (look for a new commit now: a git host's push webhook), `POST /api/override`
 * (`{"windows":"open"|"closed"|null,"for":"1h"}`). Other handlers (a dashboard) are mounted at
 * a prefix of their own with `mount`. Every route answers by the access rule of
 * src/domain/http-access.ts: probes are open, reads need an allowed Host, actions the token.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SECURITY_HEADERS, accessOf, readJsonObject } from '../dashboard/http-edge';
import { parseGoDuration } from '../domain/duration';
import { InputError, errorMessage } from '../domain/errors';
import { accessPolicy, type AccessPolicy, type AccessSettings, type RouteClass } from '../domain/http-access';
import { decodePathPart, targetPath } from '../domain/http-input';
import type { ReconcilerHandle } from './events';
import type { ReconcilerMetrics } from './metrics';

/** A mounted handler: gets requests under its prefix (the URL as sent); returns false to pass them on. */
export type RouteHandler = (req: http.IncomingMessage, res: http.ServerResponse) => boolean | Promise<boolean>;

/** The longest window override: past it, an override is a forgotten one. */
export const MAX_OVERRIDE_MS = 7 * 24 * 3600 * 1000;

/** Reads `HOST:PORT` (`[::1]:9464`, `:9464` for every interface). */
export function parseListen(text: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(text.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535)
    throw new InputError(`expected HOST:PORT, not ${JSON.stringify(text)}`, {
      path: '--listen',
      hint: 'e.g. 127.0.0.1:9464, or :9464 for every interface',
    });
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port };
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  const text = `${JSON.stringify(body)}\n`;
  res
    .writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'content-length': Buffer.byteLength(text),
    })
    .end(text);
}

/** A refusal of the request, as the API answers one. */
class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly hint?: string,
    readonly allow?: string,
  ) {
    super(message);
  }
}

/** The API's routes: what each path takes, by method, and the class of access it needs. */
const API_ROUTES: ReadonlyArray<{ readonly path: string | RegExp; readonly method: 'GET' | 'POST'; readonly routeClass: RouteClass }> = [
  { path: '/healthz', method: 'GET', routeClass: 'probe' },
  { path: '/metrics', method: 'GET', routeClass: 'probe' },
  { path: '/api/status', method: 'GET', routeClass: 'read' },
  { path: '/api/events', method: 'GET', routeClass: 'read' },
  { path: /^\/api\/approve\/[^/]+$/, method: 'POST', routeClass: 'action' },
  { path: '/api/heal', method: 'POST', routeClass: 'action' },
  { path: '/api/override', method: 'POST', routeClass: 'action' },
  { path: '/api/refresh', method: 'POST', routeClass: 'nudge' },
];

/** The access class of `method` on path `p`; a Refusal for a path or method the API does not serve. */
function routeClassOf(method: string, p: string): RouteClass {
  const route = API_ROUTES.find((r) => (typeof r.path === 'string' ? r.path === p : r.path.test(p)));
  if (!route) throw new Refusal(404, `no route ${method} ${p}`);
  const asked = method === 'HEAD' ? 'GET' : method;
  if (asked !== route.method)
    throw new Refusal(405, `${p} takes ${route.method}`, undefined, route.method === 'GET' ? 'GET, HEAD' : route.method);
  return route.routeClass;
}

/** Milliseconds of an override's `for`, checked: a duration of at most MAX_OVERRIDE_MS. */
function overrideFor(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  const ms = typeof value === 'string' ? parseGoDuration(value) : undefined;
  if (ms === undefined || ms <= 0) throw new Refusal(400, `"for" is a duration like 1h, not ${JSON.stringify(value)}`);
  if (ms > MAX_OVERRIDE_MS)
    throw new Refusal(
      400,
      `"for" is at most 168h (7 days), not ${JSON.stringify(value)}`,
      'clear the override and set it again, or change the windows in the code',
    );
  return ms;
}

export class ReconcilerServer {
  private readonly mounts: Array<{ prefix: string; handler: RouteHandler }> = [];
  private readonly server: http.Server;
  private readonly policy: AccessPolicy;

  constructor(
    private readonly handle: ReconcilerHandle,
    private readonly metrics: ReconcilerMetrics,
    private readonly healthy: () => boolean = () => true,
    access: AccessSettings = {},
  ) {
    this.policy = accessPolicy(access);
    this.server = http.createServer((req, res) => {
      for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
      this.route(req, res).catch((err: unknown) => {
        if (res.headersSent) res.end();
        else if (err instanceof Refusal) {
          if (err.allow) res.setHeader('allow', err.allow);
          json(res, err.status, { error: err.message, ...(err.hint ? { hint: err.hint } : {}) });
        } else json(res, err instanceof InputError ? 400 : 500, { error: errorMessage(err) });
      });
    });
  }

  /** Serves requests whose path starts with `prefix` (e.g. `/ui`) by `handler`, before the built-in routes. */
  mount(prefix: string, handler: RouteHandler): this {
    this.mounts.push({ prefix: prefix.replace(/\/+$/, ''), handler });
    this.mounts.sort((a, b) => b.prefix.length - a.prefix.length);
    return this;
  }

  async listen(host: string, port: number): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => resolve());
    });
    const a = this.server.address() as AddressInfo;
    return `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const target = targetPath(req.url);
    if (!target.ok) throw new Refusal(target.status, target.message);
    const p = target.value;
    for (const m of this.mounts) {
      if ((p === m.prefix || p.startsWith(`${m.prefix}/`) || m.prefix === '') && (await m.handler(req, res))) return;
    }
    const method = req.method ?? 'GET';
    const access = accessOf(req, routeClassOf(method, p), this.policy);
    if (!access.allow) throw new Refusal(access.status, access.reason, access.hint);
    if ((method === 'GET' || method === 'HEAD') && p === '/healthz') {
      // Degraded while cycles fail: 503 with the failing step and cause. `?live` asks only whether the loop runs (a liveness probe: a restart fixes no broken commit).
      const ok = this.healthy();
      const live = new URLSearchParams((req.url ?? '').split('#', 1)[0]?.split('?')[1] ?? '').has('live');
      const failing = ok && !live ? this.handle.status().failing : undefined;
      if (failing) return json(res, 503, { status: 'degraded', ...failing });
      res.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' }).end(ok ? 'ok\n' : 'unhealthy\n');
      return;
    }
    if (p === '/metrics') {
      const text = await this.metrics.text();
      res.writeHead(200, { 'content-type': this.metrics.contentType }).end(text);
      return;
    }
    if (p === '/api/status') return json(res, 200, this.handle.status());
    if (p === '/api/events') return this.stream(req, res);
    const body = await readJsonObject(req, res);
    if (!body.ok) throw new Refusal(body.status, body.message);
    if (p.startsWith('/api/approve/')) {
      const stack = decodePathPart(p.slice('/api/approve/'.length), 'the stack');
      if (!stack.ok) throw new Refusal(stack.status, stack.message);
      const ok = this.handle.approve(stack.value);
      return json(res, ok ? 200 : 409, ok ? { approved: stack.value } : { error: `stack ${stack.value} waits for no approval` });
    }
    if (p === '/api/heal') {
      this.handle.healNow();
      return json(res, 202, { started: true });
    }
    if (p === '/api/refresh') {
      this.handle.refresh();
      return json(res, 202, { refreshing: true });
    }
    const { windows } = body.value;
    const mode = windows === 'open' || windows === 'closed' ? windows : undefined;
    if (windows !== null && windows !== undefined && !mode) throw new Refusal(400, 'windows is "open", "closed" or null');
    const forMs = overrideFor(body.value.for);
    this.handle.overrideWindows(mode, forMs === undefined ? undefined : Date.now() + forMs);
    return json(res, 200, this.handle.status().override ?? { windows: null });
  }

  private stream(req: http.IncomingMessage, res: http.ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    res.write(': fleetform reconciler events\n\n');
    const stop = this.handle.subscribe((e) => res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`));
    req.on('close', stop);
  }
}
