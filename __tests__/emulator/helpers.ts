/** Helpers of the emulator tests: temp folders, transports and authenticated clients, status codes, machines and configs (per-file set-up: ./fixture). */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ServiceType } from '@bufbuild/protobuf';
import { createClient, type Client, type Transport } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import { AuthService } from '../../src/api/services';
import type { EmulatorCredentials, RunningEmulator } from '../../src/emulator';

export type Protocol = 'grpc' | 'grpc-web' | 'connect';

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'fleetform-emulator-'));
}

export function transport(url: string, protocol: Protocol, headers?: Record<string, string>): Transport {
  const interceptors = headers
    ? [
        (next: Parameters<NonNullable<Parameters<typeof createGrpcTransport>[0]['interceptors']>[number]>[0]) =>
          async (req: Parameters<typeof next>[0]) => {
            for (const [k, v] of Object.entries(headers)) req.header.set(k, v);
            return next(req);
          },
      ]
    : [];
  switch (protocol) {
    case 'grpc':
      return createGrpcTransport({ baseUrl: url, httpVersion: '2', interceptors });
    case 'grpc-web':
      return createGrpcWebTransport({ baseUrl: url, httpVersion: '1.1', interceptors });
    case 'connect':
      return createConnectTransport({ baseUrl: url, httpVersion: '1.1', useBinaryFormat: false, interceptors });
  }
}

/** A bearer token for an API key. */
export async function tokenFor(url: string, keyId: string, key: string, protocol: Protocol = 'grpc-web'): Promise<string> {
  const auth = createClient(AuthService, transport(url, protocol));
  const res = await auth.authenticate({ entity: keyId, credentials: { type: 'api-key', payload: key } });
  return res.accessToken as string;
}

/** A client of `service` authenticated with the given key (default: the seeded owner key). */
export async function clientOf<S extends ServiceType>(
  emulator: RunningEmulator,
  service: S,
  options: { protocol?: Protocol; credentials?: Pick<EmulatorCredentials, 'apiKeyId' | 'apiKey'> } = {},
): Promise<Client<S>> {
  const creds = options.credentials ?? emulator.credentials;
  const protocol = options.protocol ?? 'grpc-web';
  const token = await tokenFor(emulator.url, creds.apiKeyId, creds.apiKey, protocol);
  return createClient(service, transport(emulator.url, protocol, { authorization: `Bearer ${token}` }));
}

/** The status code name of a rejected call (`NotFound`, ...), or 'ok'. */
export async function codeOf(p: Promise<unknown>): Promise<string> {
  const { Code, ConnectError } = await import('@connectrpc/connect');
  try {
    await p;
    return 'ok';
  } catch (err) {
    if (err instanceof ConnectError) return Code[err.code];
    throw err;
  }
}

/** Creates a machine in the seeded location and returns its id and main part id. */
export async function newMachine(
  app: Client<import('../../src/api/services').AppServiceType>,
  locationId: string,
  name: string,
): Promise<{ robotId: string; partId: string; partName: string }> {
  const { id } = await app.newRobot({ name, location: locationId });
  const { parts } = await app.getRobotParts({ robotId: id });
  const main = parts[0];
  if (!main) throw new Error('machine has no main part');
  return { robotId: id, partId: main.id, partName: main.name };
}

/** A machine config with one registry module per (name, version) pair, all of acme:sensors. */
export function sensorsConfig(modules: readonly { name: string; version: string }[]): Record<string, unknown> {
  return {
    components: [{ name: 'board1', api: 'rdk:component:board', model: 'acme:sensors:pi-board' }],
    modules: modules.map((m) => ({ type: 'registry', name: m.name, module_id: 'acme:sensors', version: m.version })),
  };
}

/**
 * Polls `read` until `done` holds for what it returns, or fails after `timeoutMs` naming
 * `what` and the last value read (no fixed sleep decides a test).
 */
export async function waitUntil<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline)
      throw new Error(
        `${what}: not reached within ${timeoutMs} ms; last read ${JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
