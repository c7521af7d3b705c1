/**
 * fleetform's own HTTP servers as tests reach them, in process: the reconciler's server
 * (over a handle that records what it is asked) with the dashboard mounted at /dashboard,
 * and the dashboard's own server; and a raw request, with any method, target, headers and
 * body bytes (fetch would normalize the target and refuse to set Host).
 */
import * as http from 'node:http';
import { dashboardHandler } from '../../src/dashboard/http-handler';
import type { PageFile } from '../../src/dashboard/page-files';
import { startDashboardServer, type DashboardServer } from '../../src/dashboard/server';
import type { AccessSettings } from '../../src/domain/http-access';
import type { ReconcilerEvent, ReconcilerHandle, ReconcilerStatus } from '../../src/reconciler/events';
import { ReconcilerMetrics } from '../../src/reconciler/metrics';
import { ReconcilerServer } from '../../src/reconciler/server';
import { FakeSource, machineRow, snapshotOf } from '../dashboard/fake-source';

export const TOKEN = 'http-surface-test-token-0123456789';

/** A page of one file, so the suites need no build. */
export const PAGE_FILES: ReadonlyMap<string, PageFile> = new Map([
  ['index.html', { body: Buffer.from('<!doctype html><title>fleet</title>'), contentType: 'text/html; charset=utf-8' }],
]);

/** A reconciler handle recording every state-changing call it gets. */
export function recordingHandle(): ReconcilerHandle & { readonly asked: string[] } {
  const asked: string[] = [];
  const listeners = new Set<(e: ReconcilerEvent) => void>();
  const status: ReconcilerStatus = {
    state: 'idle',
    leader: true,
    cycle: 1,
    stacks: [{ stack: 'fleet', apply: 'approve', drift: 'warn', changes: 1, drifted: [] }],
  };
  return {
    asked,
    status: () => status,
    subscribe: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    approve: (stack) => {
      asked.push(`approve ${stack}`);
      return stack === 'fleet';
    },
    healNow: () => asked.push('heal'),
    refresh: () => asked.push('refresh'),
    overrideWindows: (mode, until) => asked.push(`override ${String(mode)} ${until === undefined ? 'forever' : 'until'}`),
  };
}

export interface Surfaces {
  /** The reconciler's server, the dashboard under /dashboard/. */
  readonly reconciler: { readonly url: string; readonly handle: ReturnType<typeof recordingHandle>; readonly source: FakeSource };
  /** The dashboard's own server. */
  readonly dashboard: { readonly url: string; readonly source: FakeSource };
  close(): Promise<void>;
}

/** `realPage`: the dashboard inside the reconciler serves the built page (dist/dashboard/page), not a stub. */
export async function startSurfaces(access: AccessSettings = { token: TOKEN }, options: { realPage?: boolean } = {}): Promise<Surfaces> {
  const handle = recordingHandle();
  const reconcilerSource = new FakeSource(snapshotOf([machineRow(1)]));
  const mounted = dashboardHandler(reconcilerSource, {
    basePath: '/dashboard',
    ...(options.realPage ? {} : { pageFiles: PAGE_FILES }),
    listenHost: '127.0.0.1',
    ...access,
  });
  const server = new ReconcilerServer(handle, new ReconcilerMetrics(), () => true, { listenHost: '127.0.0.1', ...access }).mount(
    '/dashboard',
    mounted,
  );
  const url = await server.listen('127.0.0.1', 0);
  const dashboardSource = new FakeSource(snapshotOf([machineRow(2)]));
  const own: DashboardServer = await startDashboardServer(
    dashboardSource,
    { host: '127.0.0.1', port: 0 },
    { pageFiles: PAGE_FILES, ...access },
  );
  return {
    reconciler: { url, handle, source: reconcilerSource },
    dashboard: { url: own.url.replace(/\/$/, ''), source: dashboardSource },
    close: async () => {
      mounted.close();
      await server.close();
      await own.close();
    },
  };
}

export interface RawAnswer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export interface RawRequest {
  readonly method?: string;
  /** The request target as sent, not encoded. */
  readonly target: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: Uint8Array | string;
}

/** Sends one request as given; resolves with the answer (an event stream's once its headers came: it is then closed). */
export function raw(baseUrl: string, request: RawRequest): Promise<RawAnswer> {
  const base = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: base.hostname,
      port: base.port,
      method: request.method ?? 'GET',
      path: request.target,
      headers: { ...request.headers },
      agent: false,
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      const done = (): void => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.on('error', () => undefined);
      if (String(res.headers['content-type']).startsWith('text/event-stream')) {
        res.destroy();
        done();
        return;
      }
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', done);
    });
    req.end(request.body);
  });
}

/** Headers of a JSON action from a command line holding the token. */
export function withToken(extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...extra };
}
