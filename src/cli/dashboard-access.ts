/**
 * Who may act on a dashboard and where it listens: the token in FLEETFORM_DASHBOARD_TOKEN
 * (an environment variable, never a flag other users could read) and the `--listen`
 * address, as `fleetform dashboard` and `fleetform reconcile` read them.
 */
import { InputError } from '../domain/errors';

export const DASHBOARD_TOKEN_ENV = 'FLEETFORM_DASHBOARD_TOKEN';
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
