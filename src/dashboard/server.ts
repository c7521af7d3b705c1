/** The dashboard's own HTTP server (`fleetform dashboard --listen`), for when no reconciler serves it. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SECURITY_HEADERS } from './http-edge';
import { dashboardHandler, type DashboardHandler, type DashboardHandlerOptions } from './http-handler';
import type { DashboardSource } from './source';

export interface DashboardServer {
  readonly url: string;
  readonly handler: DashboardHandler;
  close(): Promise<void>;
}

export async function startDashboardServer(
  source: DashboardSource,
  listen: { host: string; port: number },
  options: DashboardHandlerOptions = {},
): Promise<DashboardServer> {
  const handler = dashboardHandler(source, { listenHost: listen.host, ...options });
  const server: Server = createServer((req, res) => {
    void handler(req, res).then((handled) => {
      if (handled) return;
      res.writeHead(404, { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8' });
      res.end('not found\n');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
  return {
    url: `http://${host}:${port}${options.basePath ?? ''}/`,
    handler,
    close: () =>
      new Promise<void>((resolve) => {
        handler.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
