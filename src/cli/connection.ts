import * as path from 'node:path';
import { createServiceClient, type ServiceClient } from '../api/client';
import { parseDuration } from '../domain/duration';
import { InputError } from '../domain/errors';
import { checkServiceEndpoint } from '../domain/service-endpoint';
import { processRedactor } from '../engine/redactor';

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

/** An endpoint as a comparable origin (`https://host:443` and `https://host` are one); the text itself when it is no URL. */
function origin(endpoint: string): string {
  try {
    return new URL(endpoint).origin;
  } catch {
    return endpoint.trim().replace(/\/+$/, '');
  }
}

/** Whether FLEETFORM_ALLOW_APP_ENDPOINT lets the app's FleetProvider choose the endpoint. */
export function appEndpointAllowed(env: NodeJS.ProcessEnv): boolean {
  return ['1', 'true', 'yes'].includes((env.FLEETFORM_ALLOW_APP_ENDPOINT ?? '').trim().toLowerCase());
}

/**
 * The endpoint the API key goes to. The operator pins it (FLEETFORM_ENDPOINT); an endpoint
 * the synthesized app names (its FleetProvider's) is used only when it is the pinned one, or
 * when the operator lets the app choose (`allowApp`): code, which a commit changes, never
 * decides on its own where the key goes. Undefined: the embedded emulator.
 */
export function chosenEndpoint(
  pinned: string | undefined,
  app: { readonly endpoint: string; readonly stack?: string } | undefined,
  allowApp: boolean,
): string | undefined {
  if (!app) return pinned;
  if (allowApp || (pinned && origin(pinned) === origin(app.endpoint))) return app.endpoint;
  const block = `the FleetProvider${app.stack ? ` of stack ${app.stack}` : ''}`;
  const allow = 'or let the app choose with --allow-app-endpoint (FLEETFORM_ALLOW_APP_ENDPOINT=1)';
  throw new InputError(
    pinned
      ? `${block} names the endpoint ${app.endpoint}, but FLEETFORM_ENDPOINT pins ${pinned}: the API key goes only to the pinned endpoint`
      : `${block} names the endpoint ${app.endpoint}, and no endpoint is pinned: the API key goes only where the operator says`,
    {
      path: `${app.stack ? `stack ${app.stack}: ` : ''}FleetProvider.endpoint`,
      hint: pinned
        ? `remove endpoint from the FleetProvider (FLEETFORM_ENDPOINT decides) or make it ${pinned}, ${allow}`
        : `set FLEETFORM_ENDPOINT=${app.endpoint} to use it, remove endpoint from the FleetProvider to use the embedded emulator, ${allow}`,
    },
  );
}

/** The endpoint the stacks' FleetProvider blocks name (see providerEndpoint) and the first stack naming it. */
export function appEndpointOf(
  stacks: ReadonlyArray<{ readonly name: string; readonly provider: { readonly endpoint?: string | undefined } }>,
): { endpoint: string; stack: string } | undefined {
  const endpoint = providerEndpoint(stacks.map((s) => s.provider.endpoint));
  const stack = stacks.find((s) => s.provider.endpoint === endpoint);
  return endpoint && stack ? { endpoint, stack: stack.name } : undefined;
}

/** FLEETFORM_CALL_TIMEOUT (a duration such as 5s) bounds each attempt of a service call; default the client's. */
function callTimeout(env: NodeJS.ProcessEnv): { timeoutMs?: number } {
  const text = env.FLEETFORM_CALL_TIMEOUT;
  if (!text) return {};
  return { timeoutMs: parseDuration(text, 'FLEETFORM_CALL_TIMEOUT', { minimumMs: 1 }) };
}

/**
 * Finds the service the way every fleetform command does: FLEETFORM_ENDPOINT when set (an
 * endpoint the stacks' FleetProvider names must be that one, unless the operator allows
 * the app's, see chosenEndpoint), with FLEETFORM_API_KEY and FLEETFORM_API_KEY_ID; with
 * none, the embedded emulator, started in this process on `<cwd>/.fleetform/emulator/`
 * with its seeded owner key.
 */
export async function openConnection(options: {
  cwd: string;
  env: NodeJS.ProcessEnv;
  maxConnections?: number;
  providerEndpoint?: string;
  /** The stack whose FleetProvider names `providerEndpoint`, for errors. */
  providerStack?: string;
  /** The app's FleetProvider may name another endpoint than the pinned one (default FLEETFORM_ALLOW_APP_ENDPOINT). */
  allowAppEndpoint?: boolean;
}): Promise<Connection> {
  const pool = { ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }), ...callTimeout(options.env) };
  const { env } = options;
  const fromEnv = env.FLEETFORM_ENDPOINT || undefined;
  const app = options.providerEndpoint
    ? { endpoint: options.providerEndpoint, ...(options.providerStack ? { stack: options.providerStack } : {}) }
    : undefined;
  const endpoint = chosenEndpoint(fromEnv, app, options.allowAppEndpoint ?? appEndpointAllowed(env));
  if (endpoint) {
    const fromPinned = fromEnv !== undefined && endpoint === fromEnv;
    checkServiceEndpoint(endpoint, fromPinned ? 'FLEETFORM_ENDPOINT' : `${app?.stack ? `stack ${app.stack}: ` : ''}FleetProvider.endpoint`);
    const missing = ['FLEETFORM_API_KEY', 'FLEETFORM_API_KEY_ID'].filter((k) => !env[k]);
    if (missing.length > 0) {
      const source = fromPinned ? 'FLEETFORM_ENDPOINT is set' : `the FleetProvider's endpoint is ${endpoint}`;
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
  processRedactor.add(credentials.apiKey);
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
