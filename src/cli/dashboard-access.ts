/**
 * Who may act on a dashboard or a reconciler and where it listens: the token in
 * FLEETFORM_DASHBOARD_TOKEN (an environment variable, never a flag other users could read),
 * the `--listen` address, the names `--allow-host` adds and `--readers-need-token`, as
 * `fleetform dashboard` and `fleetform reconcile` read them.
 */
import type { Command } from 'commander';
import { InputError } from '../domain/errors';
import { ACCESS_TOKEN_ENV, isHostName, type AccessSettings } from '../domain/http-access';

export const DASHBOARD_TOKEN_ENV = ACCESS_TOKEN_ENV;
/** Shorter tokens are refused: the token guards writes to the fleet. */
const MIN_TOKEN_LENGTH = 16;

/** `host:port` (IPv6 in brackets); port 0 picks a free one. */
export function parseListen(text: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(text.trim());
  const port = Number(m?.[3]);
  if (!m || port > 65535)
    throw new InputError(`expected host:port, not ${JSON.stringify(text)}`, {
      path: '--listen',
      hint: 'e.g. 127.0.0.1:8420, or 0.0.0.0:8420 to be reached from other computers',
    });
  return { host: (m[1] ?? m[2]) as string, port };
}

export function dashboardToken(env: NodeJS.ProcessEnv): string | undefined {
  const token = env[DASHBOARD_TOKEN_ENV]?.trim();
  if (!token) return undefined;
  if (token.length < MIN_TOKEN_LENGTH)
    throw new InputError(`${DASHBOARD_TOKEN_ENV} is too short (${token.length} characters)`, {
      path: DASHBOARD_TOKEN_ENV,
      hint: `use at least ${MIN_TOKEN_LENGTH} random characters, e.g. \`openssl rand -hex 24\``,
    });
  return token;
}

/** The flags of the access rule, as `dashboard` and `reconcile` read them. */
export interface AccessFlags {
  allowHost: string[];
  readersNeedToken?: boolean;
}

/** Adds `--allow-host` and `--readers-need-token` to a serving command. */
export function addAccessOptions(cmd: Command): Command {
  return cmd
    .option(
      '--allow-host <name>',
      "another name clients reach the server by, accepted in Host and Origin (e.g. a reverse proxy's; repeatable; loopback names and the --listen address always are)",
      (value: string, previous: string[]) => [...previous, value],
      [],
    )
    .option('--readers-need-token', `reads (status, events, the dashboard's data) need the token in ${DASHBOARD_TOKEN_ENV} too`);
}

/** The access settings of a server from its flags and the token; refuses what cannot be served. */
export function accessSettings(flags: AccessFlags, token: string | undefined): AccessSettings {
  for (const name of flags.allowHost)
    if (!isHostName(name))
      throw new InputError(`${JSON.stringify(name)} is not a host name`, {
        path: '--allow-host',
        hint: 'give a name or address without scheme, port or path, e.g. fleet.example.com',
      });
  if (flags.readersNeedToken && token === undefined)
    throw new InputError(`--readers-need-token needs the token: ${DASHBOARD_TOKEN_ENV} is not set`, {
      path: DASHBOARD_TOKEN_ENV,
      hint: `set ${DASHBOARD_TOKEN_ENV} to at least ${MIN_TOKEN_LENGTH} random characters, e.g. \`openssl rand -hex 24\``,
    });
  return { ...(token ? { token } : {}), allowHosts: flags.allowHost, readersNeedToken: flags.readersNeedToken === true };
}
