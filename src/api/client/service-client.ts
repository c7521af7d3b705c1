/**
 * `createServiceClient`: the service client over the real wire protocol.
 * Authenticates with the API key before returning, then hands out the typed clients
 * (training, app, datasets) and authenticated raw clients for any other service.
 */
import type { ServiceType } from '@bufbuild/protobuf';
import { ConnectError, createClient, type Client, type Transport } from '@connectrpc/connect';
import { z } from 'zod';
import { InputError } from '../../domain/errors';
import { schemaProblems } from '../../domain/schema-issues';
import { AuthService, loadServices } from '../services';
import { createAppClient, type AppClient } from './app-client';
import { authInterceptor, AuthenticationError, TokenSource, type ApiKeyCredentials } from './auth';
import { createInvoker, type CallSettings } from './call';
import { createDatasetClient, type DatasetClient } from './dataset-client';
import { createDataPipelinesClient, type DataPipelinesClient } from './data-pipelines-client';
import { toServiceError } from './errors';
import { createMlTrainingClient, type MlTrainingClient } from './ml-training-client';
import { createPackagesClient, type PackagesClient } from './packages-client';
import { underStopHook } from './stop-hook';
import { DEFAULT_RETRY_POLICY, systemClock, withRetries, type RetryClock, type RetryPolicy } from './retry';
import type { ClientTransportOptions, ResponseCompression, TransportKind } from './transport';

/** The engine's default parallelism, and so the default size of the connection pool. */
export const DEFAULT_MAX_CONNECTIONS = 10;
/** Default deadline of each call attempt. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** Options of {@link createServiceClient}. */
export interface ServiceClientOptions {
  /** Base URL of the service with scheme and port, e.g. `http://127.0.0.1:8080`. */
  readonly serviceHost: string;
  readonly credentials: ApiKeyCredentials;
  /** `grpc-web` (HTTP/1.1, default) or `grpc` (HTTP/2). */
  readonly transport?: TransportKind;
  /** HTTP/1.1 keep-alive connections at most (gRPC-web); default 10. */
  readonly maxConnections?: number;
  /**
   * Ask for gzip-compressed responses (`gzip`) or not (`none`). Default: `none` when the
   * service is on this host (localhost, 127.x, ::1), `gzip` otherwise.
   */
  readonly compression?: ResponseCompression;
  /** Deadline of each call attempt in milliseconds; default 30000. */
  readonly timeoutMs?: number;
  /** Retry policy for safe calls; default 4 attempts, 100 ms doubling, at most 2 s. */
  readonly retry?: Partial<RetryPolicy>;
  /** Time source of the retry waits (tests inject one). */
  readonly clock?: RetryClock;
}

/** The service client: typed clients plus raw access to other services. */
export interface ServiceClient {
  readonly mlTrainingClient: MlTrainingClient;
  readonly appClient: AppClient;
  readonly datasetClient: DatasetClient;
  readonly dataPipelinesClient: DataPipelinesClient;
  /** Registry packages, over HTTP/2 gRPC (CreatePackage streams). */
  readonly packagesClient: PackagesClient;
  /**
   * A connect-es client for any service over the same authenticated transport (bearer
   * token, re-authentication, default deadline). Errors are raw ConnectErrors.
   */
  clientFor<S extends ServiceType>(service: S): Client<S>;
  /** Open connections now (for diagnostics and tests). */
  connections(): number;
  /** Closes the connections; the client is unusable afterwards. */
  close(): Promise<void>;
}

/**
 * The wire transports (connect-node, undici) load on the first connection, so a program
 * that only declares constructs never pays for loading them.
 */
function transports(): typeof import('./transport') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, synchronously
  return require('./transport') as typeof import('./transport');
}

const OptionsSchema = z.object({
  serviceHost: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL with the port, e.g. http://127.0.0.1:8080' }),
  credentials: z.object({
    type: z.literal('api-key'),
    authEntity: z.string().min(1, 'the API key id is empty'),
    payload: z.string().min(1, 'the API key is empty'),
  }),
  transport: z.enum(['grpc-web', 'grpc']).optional(),
  maxConnections: z.int().min(1).max(1024).optional(),
  compression: z.enum(['gzip', 'none']).optional(),
  timeoutMs: z.int().min(1).optional(),
});

/** Whether a URL's host is this machine: 127.0.0.0/8, ::1 or localhost. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Refuses to send the API key over plain HTTP to a host other than this machine: anyone on
 * the way would read it. Checked before any connection is made.
 */
export function checkKeyTransport(serviceHost: string): void {
  let url: URL;
  try {
    url = new URL(serviceHost);
  } catch {
    return; // the schema reports it
  }
  if (url.protocol !== 'http:' || isLoopbackHost(url.hostname)) return;
  throw new InputError(`the API key would go over plain HTTP to ${url.host}, which is not this machine: refused before any request`, {
    path: 'serviceHost',
    hint: `use https://${url.host} (plain http:// is for a service on this machine: 127.0.0.1, ::1 or localhost)`,
  });
}

/** Checks the options; the key itself never appears in the message. */
function checkOptions(opts: ServiceClientOptions): void {
  const r = OptionsSchema.safeParse(opts);
  if (r.success) return checkKeyTransport(opts.serviceHost);
  const [first] = schemaProblems(r.error.issues, opts, { noun: 'option', ownMessages: true });
  throw new InputError(first?.text ?? 'invalid options', {
    path: first?.path ?? '',
    hint: 'createServiceClient({ serviceHost, credentials: { type: "api-key", authEntity: KEY_ID, payload: KEY } })',
  });
}

/**
 * Connects to the service and authenticates with the API key (AuthService/Authenticate);
 * rejects with a ServiceError (method `AuthService.Authenticate`) when the key is refused.
 */
export async function createServiceClient(opts: ServiceClientOptions): Promise<ServiceClient> {
  checkOptions(opts);
  const services = await loadServices();
  const baseUrl = opts.serviceHost.replace(/\/+$/, '');
  const { authEntity, payload } = opts.credentials;
  const settings: CallSettings = {
    serviceHost: baseUrl,
    timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    retry: { ...DEFAULT_RETRY_POLICY, ...opts.retry },
    clock: opts.clock ?? systemClock,
    secrets: [payload],
  };

  // The exchange runs through the same transport; the interceptor leaves AuthService alone.
  const tokens = new TokenSource(async () => {
    try {
      const req = { entity: authEntity, credentials: { type: 'api-key', payload } };
      const res = await auth.authenticate(req, { timeoutMs: settings.timeoutMs });
      return res.accessToken;
    } catch (e) {
      throw new AuthenticationError(ConnectError.from(e), settings.secrets);
    }
  });
  const { createClientTransport, defaultCompression } = transports();
  const transportOptions: ClientTransportOptions = {
    baseUrl,
    kind: opts.transport ?? 'grpc-web',
    maxConnections: opts.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    compression: opts.compression ?? defaultCompression(baseUrl),
    defaultTimeoutMs: settings.timeoutMs,
    interceptors: [authInterceptor(tokens)],
  };
  const wire = createClientTransport(transportOptions);
  const auth = createClient(AuthService, wire.transport);

  try {
    await withRetries(() => tokens.token(), { safe: true, policy: settings.retry, clock: settings.clock });
  } catch (e) {
    await wire.close();
    throw toServiceError(e, {
      method: 'AuthService.Authenticate',
      serviceHost: baseUrl,
      timeoutMs: settings.timeoutMs,
      secrets: settings.secrets,
    });
  }

  // Client-streaming calls need HTTP/2: over gRPC-web, packages get an HTTP/2 transport of their own, opened at first use.
  let streaming: ReturnType<typeof createClientTransport> | undefined;
  const streamingTransport = (): Transport => {
    if (opts.transport === 'grpc') return wire.transport;
    streaming ??= createClientTransport({ ...transportOptions, kind: 'grpc' });
    return streaming.transport;
  };
  const lazyStreaming: Transport = {
    unary: (...args) => streamingTransport().unary(...args),
    stream: (...args) => streamingTransport().stream(...args),
  };

  // A drift check reads thousands of part versions: they go the plain way first (a call declined there is made again below).
  const versionMethod = services.partVersion.methods.getRobotPartVersion;
  const plainVersion = wire.plainUnary?.(() => tokens.peek())(services.partVersion, versionMethod);

  return {
    packagesClient: createPackagesClient(createInvoker(services.packages, lazyStreaming, settings)),
    mlTrainingClient: createMlTrainingClient(createInvoker(services.mlTraining, wire.transport, settings)),
    appClient: createAppClient(
      createInvoker(services.appWire, wire.transport, settings),
      createInvoker(services.partVersion, wire.transport, settings),
      services.sdk,
      plainVersion && ((input) => underStopHook(() => plainVersion(input), versionMethod.name)),
    ),
    datasetClient: createDatasetClient(createInvoker(services.dataset, wire.transport, settings)),
    dataPipelinesClient: createDataPipelinesClient(createInvoker(services.dataPipelines, wire.transport, settings)),
    clientFor: (service) => createClient(service, wire.transport),
    connections: () => wire.connections(),
    close: async () => {
      await Promise.all([wire.close(), streaming?.close()]);
    },
  };
}
