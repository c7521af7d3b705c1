import * as path from 'node:path';
import { createServiceClient, type ServiceClient } from '../api/client';
import { InputError } from '../domain/errors';
import { faultSpecsFromEnv, startEmulator } from '../emulator';

/** A connected service: the real cloud, or the embedded emulator started in-process. */
export interface Connection {
  readonly client: ServiceClient;
  readonly endpoint: string;
  readonly embedded: boolean;
  /** The embedded emulator's seeded organization and location (none for a real service). */
  readonly organizationId?: string;
  readonly locationId?: string;
  close(): Promise<void>;
}

/**
 * Finds the service the way every fleetform command does: FLEETFORM_ENDPOINT,
 * FLEETFORM_API_KEY and FLEETFORM_API_KEY_ID when set; otherwise the embedded emulator,
 * started in this process on `<cwd>/.fleetform/emulator/` with its seeded owner key.
 */
export async function openConnection(options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<Connection> {
  const { env } = options;
  const endpoint = env.FLEETFORM_ENDPOINT;
  if (endpoint) {
    const missing = ['FLEETFORM_API_KEY', 'FLEETFORM_API_KEY_ID'].filter((k) => !env[k]);
    if (missing.length > 0) {
      throw new InputError(`FLEETFORM_ENDPOINT is set but ${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} not`, {
        path: missing[0],
        hint: 'set the API key and its id of an organization owner, or unset FLEETFORM_ENDPOINT to use the embedded emulator',
      });
    }
    const client = await createServiceClient({
      serviceHost: endpoint,
      credentials: { type: 'api-key', authEntity: env.FLEETFORM_API_KEY_ID as string, payload: env.FLEETFORM_API_KEY as string },
    });
    return { client, endpoint, embedded: false, close: async () => client.close() };
  }
  const emulator = await startEmulator({ dataDir: path.join(options.cwd, '.fleetform', 'emulator'), port: 0, faults: faultSpecsFromEnv(env) });
  const { credentials } = emulator;
  try {
    const client = await createServiceClient({
      serviceHost: emulator.url,
      credentials: { type: 'api-key', authEntity: credentials.apiKeyId, payload: credentials.apiKey },
    });
    return {
      client,
      endpoint: emulator.url,
      embedded: true,
      organizationId: credentials.organizationId,
      locationId: credentials.locationId,
      close: async () => {
        client.close();
        await emulator.close();
      },
    };
  } catch (err) {
    await emulator.close();
    throw err;
  }
}
