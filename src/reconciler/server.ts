/**
 * The reconciler's HTTP server (`--listen HOST:PORT`): `/healthz`, `/metrics` (Prometheus),
 * and a small JSON API over the handle: `GET /api/status`, `GET /api/events` (server-sent
 * events, one `ReconcilerEvent` per message), `POST /api/approve/STACK`, `POST /api/heal`,
 * `POST /api/refresh` (look for a new commit now: a git host's push webhook), `POST /api/override` (`{"windows":"open"|"closed"|null,"for":"1h"}`). Other handlers (a
 * dashboard) are mounted at a prefix of their own with `mount`.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseGoDuration } from '../domain/duration';
import { InputError, errorMessage } from '../domain/errors';
import type { ReconcilerHandle } from './events';
import type { ReconcilerMetrics } from './metrics';

/** A mounted handler: gets requests under its prefix (the URL as sent); returns false to pass them on. */
export type RouteHandler = (req: http.IncomingMessage, res: http.ServerResponse) => boolean | Promise<boolean>;

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
  res.writeHead(status, { 'content-type': 'application/json' }).end(`${JSON.stringify(body)}\n`);
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) {
    text += String(chunk);
    if (text.length > 64 * 1024) throw new InputError('request body too large');
  }
  return text;
}

export class ReconcilerServer {
  private readonly mounts: Array<{ prefix: string; handler: RouteHandler }> = [];
  private readonly server: http.Server;

  constructor(
    private readonly handle: ReconcilerHandle,
    private readonly metrics: ReconcilerMetrics,
    private readonly healthy: () => boolean = () => true,
  ) {
    this.server = http.createServer((req, res) => {
      this.route(req, res).catch((err: unknown) => {
        if (!res.headersSent) json(res, err instanceof InputError ? 400 : 500, { error: errorMessage(err) });
        else res.end();
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
    const url = new URL(req.url ?? '/', 'http://reconciler');
    const p = url.pathname;
    for (const m of this.mounts) {
      if ((p === m.prefix || p.startsWith(`${m.prefix}/`) || m.prefix === '') && (await m.handler(req, res))) return;
    }
    const method = req.method ?? 'GET';
    if (method === 'GET' && p === '/healthz') {
      // Degraded while cycles fail: 503 with the failing step and cause. `?live` asks only whether the loop runs (a liveness probe: a restart fixes no broken commit).
      const ok = this.healthy();
      const failing = ok && !url.searchParams.has('live') ? this.handle.status().failing : undefined;
      if (failing) return json(res, 503, { status: 'degraded', ...failing });
      res.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' }).end(ok ? 'ok\n' : 'unhealthy\n');
      return;
    }
    if (method === 'GET' && p === '/metrics') {
      const text = await this.metrics.text();
      res.writeHead(200, { 'content-type': this.metrics.contentType }).end(text);
      return;
    }
    if (method === 'GET' && p === '/api/status') return json(res, 200, this.handle.status());
    if (method === 'GET' && p === '/api/events') return this.stream(req, res);
    if (method === 'POST' && p.startsWith('/api/approve/')) {
      const stack = decodeURIComponent(p.slice('/api/approve/'.length));
      const ok = this.handle.approve(stack);
      return json(res, ok ? 200 : 409, ok ? { approved: stack } : { error: `stack ${stack} waits for no approval` });
    }
    if (method === 'POST' && p === '/api/heal') {
      this.handle.healNow();
      return json(res, 202, { started: true });
    }
    if (method === 'POST' && p === '/api/refresh') {
      this.handle.refresh();
      return json(res, 202, { refreshing: true });
    }
    if (method === 'POST' && p === '/api/override') {
      const body = JSON.parse((await readBody(req)) || '{}') as { windows?: unknown; for?: unknown };
      const mode = body.windows === 'open' || body.windows === 'closed' ? body.windows : undefined;
      if (body.windows !== null && body.windows !== undefined && !mode) throw new InputError('windows is "open", "closed" or null');
      const forMs = typeof body.for === 'string' ? parseGoDuration(body.for) : undefined;
      if (body.for !== undefined && (forMs === undefined || forMs <= 0))
        throw new InputError(`"for" is a duration like 1h, not ${JSON.stringify(body.for)}`);
      this.handle.overrideWindows(mode, forMs === undefined ? undefined : Date.now() + forMs);
      return json(res, 200, this.handle.status().override ?? { windows: null });
    }
    json(res, 404, { error: `no route ${method} ${p}` });
  }

  private stream(req: http.IncomingMessage, res: http.ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.write(': fleetform reconciler events\n\n');
    const stop = this.handle.subscribe((e) => res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`));
    req.on('close', stop);
  }
}
