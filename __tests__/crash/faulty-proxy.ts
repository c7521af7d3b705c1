import * as net from 'node:net';

/** What the proxy does to the service's answer that arrives as its Nth chunk (counted over all connections). */
export type ProxyFault = { readonly kind: 'reset' | 'stall'; readonly atChunk: number };

/**
 * A TCP proxy in front of the emulator that passes everything except one answer: at the
 * chosen chunk it either resets the client's connection (the call happened on the service,
 * its answer is lost) or holds the connection silent (the client's deadline runs out).
 */
export async function startFaultyProxy(
  target: URL,
  fault: ProxyFault,
): Promise<{ url: string; hits: () => number; close(): Promise<void> }> {
  let chunks = 0;
  let hits = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    let stalled = false;
    client.on('data', (d) => {
      if (!stalled) upstream.write(d);
    });
    upstream.on('data', (d) => {
      chunks += 1;
      if (chunks === fault.atChunk) {
        hits += 1;
        if (fault.kind === 'reset') {
          client.resetAndDestroy();
          upstream.destroy();
          return;
        }
        stalled = true;
      }
      if (!stalled) client.write(d);
    });
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits: () => hits,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
