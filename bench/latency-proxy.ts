/**
 * A loopback TCP proxy that makes a local service look remote: every chunk waits half the
 * round-trip time in each direction, and each direction of a connection is capped at a
 * bandwidth (bytes leave no faster than the cap allows, in order). It also counts the HTTP
 * requests that cross it, so a benchmark can set time against calls.
 */
import * as net from 'node:net';

export interface LatencyProxyOptions {
  /** Where the service listens, e.g. `http://127.0.0.1:8080`. */
  readonly target: string;
  /** Round-trip time added to every exchange, in milliseconds. */
  readonly rttMs: number;
  /** Bytes per second each direction of a connection carries at most; 0 for no cap. */
  readonly bytesPerSecond: number;
}

export interface LatencyProxy {
  /** The proxy's address, to use in place of the target's. */
  readonly url: string;
  /** HTTP requests seen so far (request lines that start a POST or GET). */
  requests(): number;
  close(): Promise<void>;
}

/**
 * Delivers chunks in order, each no sooner than `delayMs` after it arrived and the cap
 * allows. One queue and one timer per direction: timers of their own could fire out of
 * order (Node rounds their delays to whole milliseconds).
 */
function delayedPipe(from: net.Socket, to: net.Socket, delayMs: number, bytesPerSecond: number, onChunk?: (chunk: Buffer) => void): void {
  const queue: Array<{ readonly release: number; readonly chunk: Buffer | null }> = [];
  let lastRelease = 0;
  let timer: NodeJS.Timeout | undefined;
  const drain = (): void => {
    timer = undefined;
    const now = performance.now();
    while (queue.length > 0 && (queue[0] as { release: number }).release <= now + 0.5) {
      const { chunk } = queue.shift() as { chunk: Buffer | null };
      if (to.destroyed) continue;
      if (chunk === null) to.end();
      else to.write(chunk);
    }
    const head = queue[0];
    if (head) timer = setTimeout(drain, Math.max(0, head.release - now));
  };
  const push = (chunk: Buffer | null): void => {
    const now = performance.now();
    const sendTime = chunk && bytesPerSecond > 0 ? (chunk.length / bytesPerSecond) * 1000 : 0;
    lastRelease = Math.max(now + delayMs, lastRelease + sendTime);
    queue.push({ release: lastRelease, chunk });
    if (timer === undefined) drain();
  };
  from.on('data', (chunk: Buffer) => {
    onChunk?.(chunk);
    push(chunk);
  });
  from.on('end', () => push(null));
  from.on('error', () => to.destroy());
}

/** Counts HTTP/1.1 request lines in a byte stream split into arbitrary chunks. */
function requestCounter(): { feed(chunk: Buffer): void; count(): number } {
  let count = 0;
  let tail = '';
  const requestLine = /(?:POST|GET) \/\S* HTTP\/1\.1\r\n/g;
  return {
    feed(chunk) {
      const text = tail + chunk.toString('latin1');
      let end = 0;
      for (const m of text.matchAll(requestLine)) {
        count++;
        end = (m.index ?? 0) + m[0].length;
      }
      // What follows the last request line may hold the start of the next one, cut in two.
      tail = text.slice(Math.max(end, text.length - 256));
    },
    count: () => count,
  };
}

export async function startLatencyProxy(options: LatencyProxyOptions): Promise<LatencyProxy> {
  const target = new URL(options.target);
  const oneWay = options.rttMs / 2;
  const sockets = new Set<net.Socket>();
  let requests = 0;
  const server = net.createServer((client) => {
    client.setNoDelay(true);
    const upstream = net.connect({ host: target.hostname, port: Number(target.port) });
    upstream.setNoDelay(true);
    sockets.add(client).add(upstream);
    const counter = requestCounter();
    const before = { n: 0 };
    delayedPipe(client, upstream, oneWay, options.bytesPerSecond, (chunk) => {
      counter.feed(chunk);
      requests += counter.count() - before.n;
      before.n = counter.count();
    });
    delayedPipe(upstream, client, oneWay, options.bytesPerSecond);
    const forget = () => {
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', () => {
      upstream.destroy();
      forget();
    });
    upstream.on('close', () => {
      client.destroy();
      forget();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A latency proxy running in a child process: the same proxy, its CPU apart from the measured process. */
export interface RemoteLatencyProxy {
  readonly url: string;
  /** The proxy process's id (its CPU time can be read from /proc). */
  readonly pid: number;
  requests(): Promise<number>;
  close(): Promise<void>;
}

export async function spawnLatencyProxy(options: LatencyProxyOptions): Promise<RemoteLatencyProxy> {
  const { spawn } = await import('node:child_process');
  const path = await import('node:path');
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(__dirname, 'latency-proxy-child.ts'),
      options.target,
      String(options.rttMs),
      String(options.bytesPerSecond),
    ],
    {
      stdio: ['pipe', 'pipe', 'inherit', 'ipc'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve((JSON.parse(out.split('\n')[0] as string) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`latency proxy exited early (code ${code})`)));
  });
  return {
    url,
    pid: child.pid as number,
    requests: () =>
      new Promise<number>((resolve) => {
        child.once('message', (m) => resolve((m as { requests: number }).requests));
        child.send('count');
      }),
    close: async () => {
      child.stdin?.end();
      await exited;
    },
  };
}
