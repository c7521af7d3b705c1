/**
 * Generated requests thrown at every route of every server: the emulator (its gRPC/Connect
 * procedures, machine paths, /healthz), the reconciler's API with the dashboard inside it,
 * and the dashboard's own server. Random methods, targets with random percent-encodings,
 * Host, Origin, content types, credentials and bodies (malformed JSON, invalid UTF-8, too
 * large). No answer is a 5xx (nor a Connect `internal`), the servers keep serving, and no
 * state-changing call succeeds without the token. A fixed seed and a few hundred requests
 * here; `npm run fuzz:http` sends more (HTTP_FUZZ_RUNS, HTTP_FUZZ_SEED=random).
 */
import * as fs from 'node:fs';
import fc from 'fast-check';
import { startEmulator, type RunningEmulator } from '../../src/emulator';
import { tempDir } from '../emulator/helpers';
import { raw, startSurfaces, TOKEN, type RawAnswer, type RawRequest, type Surfaces } from './surfaces';

const RUNS = Number(process.env.HTTP_FUZZ_RUNS ?? 150);
const SEED = process.env.HTTP_FUZZ_SEED === 'random' ? Date.now() : Number(process.env.HTTP_FUZZ_SEED ?? 57);
jest.setTimeout(Math.max(30_000, RUNS * 20));

let surfaces: Surfaces;
let emulator: RunningEmulator;
let dataDir: string;
beforeAll(async () => {
  surfaces = await startSurfaces();
  dataDir = tempDir();
  emulator = await startEmulator({ dataDir, port: 0, simulation: { simulate: false } });
});
afterAll(async () => {
  await surfaces.close();
  await emulator.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND', 'X'];
/** Characters a request target may hold as sent (node refuses others). */
const TARGET_CHARS = "abcxyzAZ0129-._~!$&'()*+,;=:@/?#[]";
const ESCAPES = ['%E0', '%', '%zz', '%C0%80', '%ED%A0%80', '%FF', '%00', '%2F', '%2e%2e', '%F0%9F%98%80', '%0A'];

const segment = fc.oneof(
  fc.stringOf(fc.constantFrom(...TARGET_CHARS), { maxLength: 8 }),
  fc.constantFrom(...ESCAPES),
  fc.constantFrom('fleet', 'm-00001', 'fleet%2Fm-00001', '..', '', 'index.html', 'approve', 'snapshot'),
);
const tail = fc.array(segment, { maxLength: 4 }).map((parts) => parts.join('/'));

/** Targets near each server's routes, and anywhere. */
function targets(prefixes: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    fc.tuple(fc.constantFrom(...prefixes), tail).map(([p, t]) => `${p}${t}`),
    fc.constantFrom(...prefixes),
    tail.map((t) => `/${t}`),
  );
}

const RECONCILER_PREFIXES = [
  '/healthz',
  '/metrics',
  '/api/status',
  '/api/events',
  '/api/approve/',
  '/api/heal',
  '/api/refresh',
  '/api/override',
  '/dashboard',
  '/dashboard/',
  '/dashboard/api/snapshot',
  '/dashboard/api/events',
  '/dashboard/api/token',
  '/dashboard/api/machines/',
  '/dashboard/api/actions/approve',
  '/dashboard/api/actions/abort',
  '/dashboard/api/actions/heal',
];
const DASHBOARD_PREFIXES = [
  '/',
  '/api/snapshot',
  '/api/events',
  '/api/token',
  '/api/machines/',
  '/api/actions/approve',
  '/api/actions/abort',
  '/api/actions/resume',
  '/index.html',
];
const EMULATOR_PREFIXES = [
  '/healthz',
  '/proto.rpc.v1.AuthService/Authenticate',
  '/viam.app.v1.AppService/GetRobotPart',
  '/viam.app.v1.AppService/UpdateRobotPart',
  '/viam.app.v1.AppService/CreateFragment',
  '/viam.app.v1.AppService/NewRobot',
  '/fleetform.emulator.v1.EmulatorService/SetMachineFaults',
  '/machines/',
  '/machines/%E0/',
  '/viam.app.v1.AppService/',
];

const headerValue = fc.stringOf(fc.constantFrom(...'abc:/.[]1209 \t-_=;,\x80\xff'), { maxLength: 24 });

function headersOf(port: string): fc.Arbitrary<Record<string, string>> {
  const host = fc.oneof(
    fc.constantFrom(
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `[::1]:${port}`,
      `attacker.example:${port}`,
      'rebound.example',
      '127.0.0.1',
      'a b',
      '',
    ),
    headerValue,
  );
  const origin = fc.constantFrom(
    undefined,
    `http://127.0.0.1:${port}`,
    'http://127.0.0.1:5173',
    `http://attacker.example:${port}`,
    'null',
    'https://x',
  );
  const type = fc.oneof(
    fc.constantFrom(
      undefined,
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/proto',
      'application/grpc-web+proto',
      'application/grpc-web+json',
      'application/connect+json',
      'application/grpc',
    ),
    headerValue,
  );
  const authorization = fc.constantFrom(
    undefined,
    `Bearer ${TOKEN}`,
    'Bearer wrong-token',
    'Bearer',
    'Basic Zm9vOmJhcg==',
    `bearer  ${TOKEN} `,
  );
  const site = fc.constantFrom(undefined, 'same-origin', 'same-site', 'cross-site', 'none');
  return fc.record({ host, origin, type, authorization, site }).map((h) => {
    const out: Record<string, string> = {};
    if (h.host !== '') out.host = h.host;
    if (h.origin !== undefined) out.origin = h.origin;
    if (h.type !== undefined) out['content-type'] = h.type;
    if (h.authorization !== undefined) out.authorization = h.authorization;
    if (h.site !== undefined) out['sec-fetch-site'] = h.site;
    return out;
  });
}

/** A body over the actions' 64 KiB, shown short in a counterexample. */
const LARGE_BODY = Object.assign(Buffer.from(`{"stack":"${'x'.repeat(70_000)}"}`), { [fc.toStringMethod]: () => '<70 KB body>' });

const bodies: fc.Arbitrary<Uint8Array | string | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom(
    '{}',
    '{"stack":"fleet"}',
    '{"windows":"open","for":"1h"}',
    '{"windows":"open","for":"99999999h"}',
    '{"stack":',
    '[]',
    'null',
    '{"stack":"\\ud800"}',
    '{"for":5}',
  ),
  fc.uint8Array({ maxLength: 200 }),
  fc.constant(Buffer.from([0x7b, 0x22, 0x73, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d])),
  fc.constant(LARGE_BODY),
  fc.json({ maxDepth: 4 }),
);

function requests(prefixes: readonly string[], port: string): fc.Arbitrary<RawRequest> {
  return fc.record({
    method: fc.constantFrom(...METHODS),
    target: targets(prefixes),
    headers: headersOf(port),
    body: bodies,
  });
}

/** A body to send: none for GET and HEAD (node would send it anyway), else as generated. */
function sendable(r: RawRequest): RawRequest {
  return r.method === 'GET' || r.method === 'HEAD' ? { ...r, body: undefined } : r;
}

/**
 * No 5xx, and no `internal`. Connect answers a procedure no server has with `unimplemented`
 * as HTTP 501 (its protocol's mapping, the service's answer too): that one is the caller's.
 */
function noServerError(answer: RawAnswer, r: RawRequest): void {
  const unimplemented = answer.status === 501 && (answer.body.includes('"code":"unimplemented"') || r.method === 'HEAD');
  if (answer.status >= 500 && !unimplemented)
    throw new Error(`${r.method} ${r.target} answered ${answer.status}: ${answer.body.slice(0, 300)}`);
  if (answer.body.includes('"code":"internal"')) throw new Error(`${r.method} ${r.target} answered internal: ${answer.body.slice(0, 300)}`);
}

/** State changes a recording handle and sources saw, but refresh (a nudge: no token needed). */
function changes(): number {
  const asked = surfaces.reconciler.handle.asked.filter((a) => a !== 'refresh');
  return asked.length + surfaces.reconciler.source.asked.length + surfaces.dashboard.source.asked.length;
}

/** Whether a request could be an action taken: the token, JSON, a loopback Host, no foreign origin. */
function mayAct(r: RawRequest, port: string): boolean {
  const h = r.headers ?? {};
  const host = h.host ?? '';
  const ownHost = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, '127.0.0.1'].includes(host);
  const ownOrigin = h.origin === undefined || h.origin === `http://${host}`;
  return (
    r.method === 'POST' &&
    /^bearer\s+/i.test(h.authorization ?? '') &&
    (h.authorization ?? '').trim().endsWith(TOKEN) &&
    /^application\/json\s*(;|$)/i.test(h['content-type'] ?? '') &&
    ownHost &&
    ownOrigin &&
    (h['sec-fetch-site'] === undefined || h['sec-fetch-site'] === 'same-origin' || h['sec-fetch-site'] === 'none')
  );
}

async function fuzzSurface(url: string, prefixes: readonly string[]): Promise<void> {
  const port = new URL(url).port;
  await fc.assert(
    fc.asyncProperty(requests(prefixes, port), async (generated) => {
      const r = sendable(generated);
      const before = changes();
      const answer = await raw(url, r);
      noServerError(answer, r);
      if (changes() !== before && !mayAct(r, port))
        throw new Error(`${r.method} ${r.target} changed state without the token, JSON and its own origin: ${JSON.stringify(r.headers)}`);
    }),
    { numRuns: RUNS, seed: SEED, endOnFailure: true },
  );
  expect((await raw(url, { target: prefixes[0] === '/' ? '/api/snapshot' : '/healthz' })).status).toBe(200);
}

test('the reconciler’s API and the dashboard inside it: no 5xx, no state change without the token', async () => {
  await fuzzSurface(surfaces.reconciler.url, RECONCILER_PREFIXES);
});

test('the dashboard’s own server: no 5xx, no action without the token', async () => {
  await fuzzSurface(surfaces.dashboard.url, DASHBOARD_PREFIXES);
});

test('the emulator: no 5xx, no internal, no call served without credentials, and it keeps serving', async () => {
  const port = String(emulator.port);
  await fc.assert(
    fc.asyncProperty(requests(EMULATOR_PREFIXES, port), async (generated) => {
      const r = sendable(generated);
      const answer = await raw(emulator.url, r);
      noServerError(answer, r);
      const served = answer.status === 200 && !answer.headers['grpc-status'] && !/grpc-status:\s*[1-9]/.test(answer.body);
      const open = r.target === '/healthz' || r.target.includes('AuthService/Authenticate');
      if (served && !open && (answer.headers['content-type'] ?? '').startsWith('application/json'))
        throw new Error(`${r.method} ${r.target} was served without credentials: ${answer.body.slice(0, 300)}`);
    }),
    { numRuns: RUNS, seed: SEED, endOnFailure: true },
  );
  expect((await raw(emulator.url, { target: '/healthz' })).status).toBe(200);
});
