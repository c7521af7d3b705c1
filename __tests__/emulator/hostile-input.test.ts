/**
 * Input the service refuses at decode, sent as raw bytes so no client encoder smooths it:
 * invalid UTF-8 in a string field (binary and JSON), a config nested far beyond the
 * decoder's recursion limit, a malformed percent-encoding in a machine's path. Each answers
 * invalid_argument (HTTP 400 in Connect), and the emulator keeps serving.
 */
import { useOwnerClients } from './fixture';
import { newMachine, tokenFor } from './helpers';

const fx = useOwnerClients();

function varint(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}
const field = (tag: number, bytes: ArrayLike<number>): number[] => [(tag << 3) | 2, ...varint(bytes.length), ...Array.from(bytes)];
const text = (s: string): number[] => Array.from(Buffer.from(s, 'utf8'));

/**
 * A google.protobuf.Struct `{"a":{"a":...{}}}` nested `depth` times, encoded: every level
 * is a prefix (Struct.fields entry, its key, Value.struct_value) of the one inside it.
 */
function nestedStruct(depth: number): Buffer {
  const prefixes: Buffer[] = [];
  let size = 0;
  for (let i = 0; i < depth; i++) {
    const value = [0x2a, ...varint(size)];
    const entryLength = 3 + 1 + varint(value.length + size).length + value.length + size;
    const entry = [0x0a, 0x01, 0x61, 0x12, ...varint(value.length + size), ...value];
    const prefix = Buffer.from([0x0a, ...varint(entryLength), ...entry]);
    prefixes.push(prefix);
    size += prefix.length;
  }
  return Buffer.concat(prefixes.reverse());
}

async function call(path: string, contentType: string, body: Uint8Array | string): Promise<{ status: number; code: string }> {
  const { apiKeyId, apiKey } = fx.emulator.credentials;
  const token = await tokenFor(fx.emulator.url, apiKeyId, apiKey);
  const res = await fetch(`${fx.emulator.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': contentType, authorization: `Bearer ${token}` },
    body,
  });
  const answer = (await res.json().catch(() => ({}))) as { code?: string };
  return { status: res.status, code: answer.code ?? 'ok' };
}

const UPDATE_PART = '/viam.app.v1.AppService/UpdateRobotPart';
const CREATE_FRAGMENT = '/viam.app.v1.AppService/CreateFragment';
const INVALID = { status: 400, code: 'invalid_argument' };

async function part(name: string): Promise<{ partId: string; partName: string }> {
  return newMachine(fx.app, fx.emulator.credentials.locationId, name);
}

test('the nesting helper encodes what protobuf-es decodes', async () => {
  const { Struct } = fx.services.sdk;
  expect(Struct.fromBinary(nestedStruct(3)).toJson()).toEqual({ a: { a: { a: {} } } });
});

test('invalid UTF-8 in a string field is refused, in binary and in JSON, as the service refuses it', async () => {
  const m = await part('utf8');
  const badName = Uint8Array.from([...field(1, text(m.partId)), ...field(2, [0x61, 0xff]), ...field(3, [])]);
  expect(await call(UPDATE_PART, 'application/proto', badName)).toEqual(INVALID);
  // Inside the config's Struct, which the emulator reads itself.
  const badValue = field(1, [...field(1, text('k')), ...field(2, field(3, [0xc3]))]);
  const badConfig = Uint8Array.from([...field(1, text(m.partId)), ...field(2, text(m.partName)), ...field(3, badValue)]);
  expect(await call(UPDATE_PART, 'application/proto', badConfig)).toEqual(INVALID);
  const json = Buffer.concat([Buffer.from(`{"id":"${m.partId}","name":"a`), Buffer.from([0xff]), Buffer.from('","robotConfig":{}}')]);
  expect(await call(UPDATE_PART, 'application/json', json)).toEqual(INVALID);
  expect(await call(UPDATE_PART, 'application/json', `{"id":"${m.partId}","name":"\\ud800","robotConfig":{}}`)).toEqual(INVALID);
  const fragment = Buffer.concat([
    Buffer.from('{"name":"f'),
    Buffer.from([0xe2, 0x82]),
    Buffer.from(`","organizationId":"${fx.emulator.credentials.organizationId}","config":{}}`),
  ]);
  expect(await call(CREATE_FRAGMENT, 'application/json', fragment)).toEqual(INVALID);
  // The part kept its name.
  const { part: kept } = await fx.app.getRobotPart({ id: m.partId });
  expect(kept?.name).toBe(m.partName);
});

test('a config nested 50,000 deep is invalid_argument, not internal, and the emulator keeps serving', async () => {
  const m = await part('deep');
  const deep = nestedStruct(50_000);
  const update = Buffer.concat([
    Buffer.from([...field(1, text(m.partId)), ...field(2, text(m.partName))]),
    Buffer.from([0x1a, ...varint(deep.length)]),
    deep,
  ]);
  expect(await call(UPDATE_PART, 'application/proto', update)).toEqual(INVALID);
  const orgId = fx.emulator.credentials.organizationId;
  const fragment = Buffer.concat([
    Buffer.from([...field(1, text('deep')), ...field(3, text(orgId))]),
    Buffer.from([0x12, ...varint(deep.length)]),
    deep,
  ]);
  expect(await call(CREATE_FRAGMENT, 'application/proto', fragment)).toEqual(INVALID);
  let json = '{}';
  for (let i = 0; i < 50_000; i++) json = `{"a":${json}}`;
  expect(await call(UPDATE_PART, 'application/json', `{"id":"${m.partId}","name":"${m.partName}","robotConfig":${json}}`)).toEqual(INVALID);
  expect((await fetch(`${fx.emulator.url}/healthz`)).status).toBe(200);
});

test('a malformed Host answers invalid_argument, on every procedure', async () => {
  const { request } = await import('node:http');
  const url = new URL(fx.emulator.url);
  const status = await new Promise<number>((resolve, reject) => {
    const req = request({
      host: url.hostname,
      port: url.port,
      method: 'POST',
      path: '/proto.rpc.v1.AuthService/Authenticate',
      headers: { host: 'a b', 'content-type': 'application/json' },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.end('{}');
  });
  expect(status).toBe(400);
  expect((await fetch(`${fx.emulator.url}/healthz`)).status).toBe(200);
});

test('GET /machines/%E0/x answers 400 without credentials, and the emulator lives on', async () => {
  const res = await fetch(`${fx.emulator.url}/machines/%E0/x`);
  expect(res.status).toBe(400);
  expect(((await res.json()) as { code: string }).code).toBe('invalid_argument');
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  const health = await fetch(`${fx.emulator.url}/healthz`, { method: 'HEAD' });
  expect([health.status, health.headers.get('x-content-type-options')]).toEqual([200, 'nosniff']);
  // Still serving calls: a machine is made and read back.
  const alive = await part('alive');
  expect((await fx.app.getRobotPart({ id: alive.partId })).part?.name).toBe(alive.partName);
});
