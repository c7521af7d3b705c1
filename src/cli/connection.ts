import * as path from 'node:path';
import { createServiceClient, type ServiceClient } from '../api/client';
import { parseDuration } from '../domain/duration';
import { InputError } from '../domain/errors';

/** A connected service: the real cloud, or the embedded emulator started in-process. */
export interface Connection {
  readonly client: ServiceClient;
  readonly endpoint: string;
  readonly embedded: boolean;
  /** The embedded emulator's seeded organization and location (none for a real service). */
  readonly organizationId?: string;
  readonly locationId?: string;
  /** The API key the connection authenticates with (a secret the team shares, never written anywhere). */
  readonly apiKey: string;
  close(): Promise<void>;
}

/** The one endpoint the stacks' providers name, if any; stacks naming different ones are refused. */
export function providerEndpoint(endpoints: readonly (string | undefined)[]): string | undefined {
  const named = [...new Set(endpoints.filter((e): e is string => e !== undefined && e !== ''))];
  if (named.length > 1) {
    throw new InputError(`the stacks' providers name ${named.length} endpoints (${named.join(', ')}); one run talks to one service`, {
      path: 'FleetProvider.endpoint',
      hint: 'give every stack the same endpoint, or run each group with --stack',
    });
  }
  return named[0];
}

/** FLEETFORM_CALL_TIMEOUT (a duration such as 5s) bounds each attempt of a service call; default the client's. */
function callTimeout(env: NodeJS.ProcessEnv): { timeoutMs?: number } {
  const text = env.FLEETFORM_CALL_TIMEOUT;
  if (!text) return {};
  return { timeoutMs: parseDuration(text, 'FLEETFORM_CALL_TIMEOUT', { minimumMs: 1 }) };
}

/**
 * Finds the service the way every fleetform command does: FLEETFORM_ENDPOINT when set,
 * else the endpoint the stacks' FleetProvider names, with FLEETFORM_API_KEY and
 * FLEETFORM_API_KEY_ID; with neither, the embedded emulator, started in this process on
 * `<cwd>/.fleetform/emulator/` with its seeded owner key.
 */
export async function openConnection(options: {
  cwd: string;
  env: NodeJS.ProcessEnv;
  maxConnections?: number;
  providerEndpoint?: string;
}): Promise<Connection> {
  const pool = { ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }), ...callTimeout(options.env) };
  const { env } = options;
  const fromEnv = env.FLEETFORM_ENDPOINT;
  const endpoint = fromEnv || options.providerEndpoint;
  if (endpoint) {
    const missing = ['FLEETFORM_API_KEY', 'FLEETFORM_API_KEY_ID'].filter((k) => !env[k]);
    if (missing.length > 0) {
      const source = fromEnv ? 'FLEETFORM_ENDPOINT is set' : `the FleetProvider's endpoint is ${endpoint}`;
      throw new InputError(`${source} but ${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} not`, {
        path: missing[0],
        hint: fromEnv
          ? 'set the API key and its id of an organization owner, or unset FLEETFORM_ENDPOINT to use the embedded emulator'
          : 'set the API key and its id of an organization owner, or remove the endpoint from the FleetProvider to use the embedded emulator',
      });
    }
    const client = await createServiceClient({
      serviceHost: endpoint,
      credentials: { type: 'api-key', authEntity: env.FLEETFORM_API_KEY_ID as string, payload: env.FLEETFORM_API_KEY as string },
      ...pool,
    });
    return { client, endpoint, embedded: false, apiKey: env.FLEETFORM_API_KEY as string, close: async () => client.close() };
  }
  // The emulator is loaded only when it runs here: a command against an endpoint spares it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when it runs
  const emulatorModule = require('../emulator') as typeof import('../emulator');
  const { clockOptionsFromEnv, describeFaultReport, faultSpecsFromEnv, startEmulator } = emulatorModule;
  const faults = faultSpecsFromEnv(env);
  const emulator = await startEmulator({
    dataDir: path.join(options.cwd, '.fleetform', 'emulator'),
    port: 0,
    faults,
    ...clockOptionsFromEnv(env),
  });
  const { credentials } = emulator;
  try {
    const client = await createServiceClient({
      serviceHost: emulator.url,
      credentials: { type: 'api-key', authEntity: credentials.apiKeyId, payload: credentials.apiKey },
      ...pool,
    });
    return {
      client,
      endpoint: emulator.url,
      embedded: true,
      organizationId: credentials.organizationId,
      locationId: credentials.locationId,
      apiKey: credentials.apiKey,
      close: async () => {
        client.close();
        await emulator.close();
        // Faults armed from the environment say whether they fired, so a run that tested nothing shows it.
        if (faults.length > 0) for (const line of describeFaultReport(emulator.faults())) process.stderr.write(`${line}\n`);
      },
    };
  } catch (err) {
    await emulator.close();
    throw err;
  }
}
