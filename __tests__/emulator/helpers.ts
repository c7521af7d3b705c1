/** Shared set-up for emulator tests: a real emulator per test file in a temp folder. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ServiceType } from '@bufbuild/protobuf';
import { createPromiseClient, type PromiseClient, type Transport } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import { AuthService } from '../../src/api/services';
import { startEmulator, type EmulatorCredentials, type RunningEmulator } from '../../src/emulator';

export type Protocol = 'grpc' | 'grpc-web' | 'connect';

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'fleetform-emulator-'));
}

/** Starts an emulator on port 0 in a fresh temp folder. */
export async function startTemp(dataDir = tempDir()): Promise<{ emulator: RunningEmulator; dataDir: string }> {
  return { emulator: await startEmulator({ dataDir, port: 0 }), dataDir };
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
  const auth = createPromiseClient(AuthService, transport(url, protocol));
  const res = await auth.authenticate({ entity: keyId, credentials: { type: 'api-key', payload: key } });
  return res.accessToken as string;
}

/** A client of `service` authenticated with the given key (default: the seeded owner key). */
export async function clientOf<S extends ServiceType>(
  emulator: RunningEmulator,
  service: S,
  options: { protocol?: Protocol; credentials?: Pick<EmulatorCredentials, 'apiKeyId' | 'apiKey'> } = {},
): Promise<PromiseClient<S>> {
  const creds = options.credentials ?? emulator.credentials;
  const protocol = options.protocol ?? 'grpc-web';
  const token = await tokenFor(emulator.url, creds.apiKeyId, creds.apiKey, protocol);
  return createPromiseClient(service, transport(emulator.url, protocol, { authorization: `Bearer ${token}` }));
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
