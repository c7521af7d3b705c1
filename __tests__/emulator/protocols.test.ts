/** One port, three protocols: gRPC over cleartext HTTP/2, gRPC-web over HTTP/1.1, Connect JSON. */
import * as fs from 'node:fs';
import * as http2 from 'node:http2';
import { loadServices } from '../../src/api/services';
import { useEmulator } from './fixture';
import { clientOf, newMachine, type Protocol } from './helpers';

const fx = useEmulator();

test('listens on 127.0.0.1 by default', () => {
  expect(fx.emulator.url).toBe(`http://127.0.0.1:${fx.emulator.port}`);
  expect(fx.emulator.port).toBeGreaterThan(0);
});

test.each<Protocol>(['grpc', 'grpc-web', 'connect'])('%s: authenticate and list organizations', async (protocol) => {
  const { app } = await loadServices();
  const client = await clientOf(fx.emulator, app, { protocol });
  const res = await client.listOrganizations({});
  expect(res.organizations.map((o) => o.id)).toEqual([fx.emulator.credentials.organizationId]);
});

test('Connect JSON works with plain fetch (curl-style)', async () => {
  const auth = await fetch(`${fx.emulator.url}/proto.rpc.v1.AuthService/Authenticate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      entity: fx.emulator.credentials.apiKeyId,
      credentials: { type: 'api-key', payload: fx.emulator.credentials.apiKey },
    }),
  });
  expect(auth.status).toBe(200);
  const { accessToken } = (await auth.json()) as { accessToken: string };
  const res = await fetch(`${fx.emulator.url}/viam.app.v1.AppService/ListLocations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
    body: JSON.stringify({ organizationId: fx.emulator.credentials.organizationId }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { locations: { id: string }[] };
  expect(body.locations.map((l) => l.id)).toEqual([fx.emulator.credentials.locationId]);
});

test('Connect JSON: GetRobotPart writes robot_config as the config object, as the service does', async () => {
  const { app, sdk } = await loadServices();
  const client = await clientOf(fx.emulator, app);
  const { robotId, partId, partName } = await newMachine(client, fx.emulator.credentials.locationId, 'json-part');
  const config = {
    components: [{ name: 'cam', api: 'rdk:component:camera', model: 'rdk:builtin:fake', attributes: { fps: 30, tags: ['a'] } }],
  };
  await client.updateRobotPart({ id: partId, name: partName, robotConfig: sdk.Struct.fromJson(config) });
  const auth = await fetch(`${fx.emulator.url}/proto.rpc.v1.AuthService/Authenticate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      entity: fx.emulator.credentials.apiKeyId,
      credentials: { type: 'api-key', payload: fx.emulator.credentials.apiKey },
    }),
  });
  const { accessToken } = (await auth.json()) as { accessToken: string };
  const read = (id: string) =>
    fetch(`${fx.emulator.url}/viam.app.v1.AppService/GetRobotPart`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
      body: JSON.stringify({ id }),
    });
  const res = await read(partId);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { part: { id: string; robot: string; robotConfig: unknown }; configJson: string };
  expect(body.part).toMatchObject({ id: partId, robot: robotId, robotConfig: config });
  expect(JSON.parse(body.configJson)).toEqual(config);
  // A new part's empty config is an empty object, present.
  const fresh = await newMachine(client, fx.emulator.credentials.locationId, 'json-part-new');
  expect(((await (await read(fresh.partId)).json()) as { part: { robotConfig: unknown } }).part.robotConfig).toEqual({});
});

test('Connect JSON error carries the code name', async () => {
  const res = await fetch(`${fx.emulator.url}/viam.app.v1.AppService/ListOrganizations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  expect(res.status).toBe(401);
  expect(await res.json()).toEqual({ code: 'unauthenticated', message: 'authentication required' });
});

test('a raw HTTP/2 gRPC call without a token ends with grpc-status 16 in the trailers', async () => {
  const session = http2.connect(fx.emulator.url);
  try {
    const { headers, trailers } = await new Promise<{ headers: http2.IncomingHttpHeaders; trailers: http2.IncomingHttpHeaders }>(
      (resolve, reject) => {
        const req = session.request({
          ':method': 'POST',
          ':path': '/viam.app.v1.AppService/ListOrganizations',
          'content-type': 'application/grpc',
          te: 'trailers',
        });
        let headers: http2.IncomingHttpHeaders = {};
        req.on('response', (h) => (headers = h));
        req.on('trailers', (trailers) => resolve({ headers, trailers }));
        req.on('error', reject);
        req.resume();
        req.end(Buffer.from([0, 0, 0, 0, 0]));
      },
    );
    expect(headers[':status']).toBe(200);
    expect(String(headers['content-type'])).toMatch(/^application\/grpc/);
    expect(trailers['grpc-status']).toBe('16');
    expect(decodeURIComponent(String(trailers['grpc-message']))).toBe('authentication required');
  } finally {
    session.close();
  }
});

test('close() ends idle and half-open connections of every kind', async () => {
  const { startEmulator } = await import('../../src/emulator');
  const net = await import('node:net');
  const dir = (await import('./helpers')).tempDir();
  const other = await startEmulator({ dataDir: dir, port: 0 });
  const { app } = await loadServices();
  // An HTTP/2 session kept open by a client, an HTTP/1.1 keep-alive connection, and a socket that never speaks.
  const h2client = await clientOf(other, app, { protocol: 'grpc' });
  await h2client.listOrganizations({});
  const h1client = await clientOf(other, app, { protocol: 'grpc-web' });
  await h1client.listOrganizations({});
  const silent = net.connect(other.port, '127.0.0.1');
  await new Promise<void>((resolve) => silent.once('connect', () => resolve()));
  const silentClosed = new Promise<void>((resolve) => silent.once('close', () => resolve()));
  await other.close();
  await silentClosed;
  fs.rmSync(dir, { recursive: true, force: true });
});
