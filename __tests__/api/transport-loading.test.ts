/**
 * What a transport loads: gRPC-web without compression (every command against a service
 * on this host) loads neither connect-node (and the copy of undici it brings) nor undici's
 * entry point, only its pool; gzip and HTTP/2 load connect-node when they are used. The
 * pool and the request function are the ones undici's entry point exports.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { Dispatcher, Pool } from 'undici';
import * as UndiciParts from '../../src/api/client/undici-parts';

const TRANSPORT = path.resolve(__dirname, '../../dist/api/client/transport.js');

interface Loaded {
  readonly connectNode: boolean;
  readonly undiciEntry: boolean;
  readonly undiciPool: boolean;
}

/** What a fresh node process has loaded after creating (and closing) one transport with `options`. */
function loadedBy(options: { kind: string; compression: string }): Loaded {
  const script = `
    const { createClientTransport } = require(${JSON.stringify(TRANSPORT)});
    const t = createClientTransport({ baseUrl: 'http://127.0.0.1:9', maxConnections: 1, defaultTimeoutMs: 1000, interceptors: [], ...${JSON.stringify(options)} });
    const files = Object.keys(require.cache);
    const has = (re) => files.some((f) => re.test(f.split(require('node:path').sep).join('/')));
    process.stdout.write(JSON.stringify({
      connectNode: has(/node_modules\\/@connectrpc\\/connect-node\\//),
      undiciEntry: has(/node_modules\\/undici\\/index\\.js$/),
      undiciPool: has(/node_modules\\/undici\\/lib\\/dispatcher\\/pool\\.js$/),
    }));
    t.close();
  `;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as Loaded;
}

test('gRPC-web without compression loads the pool alone', () => {
  expect(loadedBy({ kind: 'grpc-web', compression: 'none' })).toEqual({ connectNode: false, undiciEntry: false, undiciPool: true });
});

test('gzip and HTTP/2 load connect-node', () => {
  expect(loadedBy({ kind: 'grpc-web', compression: 'gzip' }).connectNode).toBe(true);
  expect(loadedBy({ kind: 'grpc', compression: 'none' }).connectNode).toBe(true);
});

test("the pool and the request function are undici's exported ones", () => {
  expect(UndiciParts.Pool).toBe(Pool);
  // Loading undici's entry point (as this test did) puts its request API on every dispatcher.
  const pool = new UndiciParts.Pool('http://127.0.0.1:9');
  const viaParts = jest.spyOn(Dispatcher.prototype, 'request');
  void UndiciParts.request(pool, { path: '/', method: 'GET' }).catch(() => undefined);
  expect(viaParts).not.toHaveBeenCalled();
  viaParts.mockRestore();
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the module the client loads
  expect(require('undici/lib/api/api-request')).toBe(pool.request);
  void pool.destroy();
});
