/**
 * `fleetform dashboard`: the web dashboard on its own, reading the state and the service
 * (and the pending plan, made on an interval), until SIGINT/SIGTERM. Actions need the token
 * in FLEETFORM_DASHBOARD_TOKEN (an environment variable, never a flag other users could
 * read); without it the dashboard is read-only. Its actions: abort a rollout, resume an
 * interrupted one (apply of its stack), approve the pending plan (apply of exactly it).
 */
import type { Command } from 'commander';
import { InputError } from '../../domain/errors';
import type { AppRunner } from '../app-runner';
import { addEngineOptions, type EngineCommandOptions } from '../engine-options';

export const DASHBOARD_TOKEN_ENV = 'FLEETFORM_DASHBOARD_TOKEN';
/** Shorter tokens are refused: the token guards writes to the fleet. */
const MIN_TOKEN_LENGTH = 16;

export interface DashboardOptions extends EngineCommandOptions {
  listen: string;
  interval: string;
  planEvery: string;
  plan: boolean;
}

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

/** What `dashboard` runs, loaded when it runs rather than at every command line. */
function dashboardRun(): typeof import('./dashboard-run') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when it runs
  return require('./dashboard-run') as typeof import('./dashboard-run');
}

export function register(program: Command, apps: AppRunner): void {
  addEngineOptions(
    program
      .command('dashboard')
      .description(
        `serve the web dashboard (machines, rollouts, drift, plans) read from the state and the service; actions need the token in ${DASHBOARD_TOKEN_ENV}`,
      )
      .option('--listen <host:port>', 'where to serve it', '127.0.0.1:8420')
      .option('--interval <duration>', 'how often machines are read, e.g. 2s', '2s')
      .option('--plan-every <duration>', 'how often the pending plan is made (it runs the app and reads the service)', '1m')
      .option('--no-plan', 'do not make the pending plan (the plans and drift pages stay empty)'),
  ).action((opts: DashboardOptions) => dashboardRun().runDashboard(opts, apps));
}
