/**
 * `fleetform dashboard`: the web dashboard on its own, reading the state and the service
 * (and the pending plan, made on an interval), until SIGINT/SIGTERM. Actions need the token
 * in FLEETFORM_DASHBOARD_TOKEN (an environment variable, never a flag other users could
 * read); without it the dashboard is read-only. Its actions: abort a rollout, resume an
 * interrupted one (apply of its stack), approve the pending plan (apply of exactly it).
 */
import type { Command } from 'commander';
import type { AppRunner } from '../app-runner';
import { addEngineOptions } from '../engine-options';
import { addAccessOptions, DASHBOARD_TOKEN_ENV } from '../dashboard-access';
import type { DashboardOptions } from './dashboard-run';
import { runOf } from './runs';

export { DASHBOARD_TOKEN_ENV, dashboardToken, parseListen } from '../dashboard-access';

export function register(program: Command, apps: AppRunner): void {
  addEngineOptions(
    addAccessOptions(
      program
        .command('dashboard')
        .description(
          `serve the web dashboard (machines, rollouts, drift, plans) read from the state and the service; actions need the token in ${DASHBOARD_TOKEN_ENV}`,
        )
        .option('--listen <host:port>', 'where to serve it', '127.0.0.1:8420')
        .option('--interval <duration>', 'how often machines are read, e.g. 2s', '2s')
        .option('--plan-every <duration>', 'how often the pending plan is made (it runs the app and reads the service)', '1m')
        .option('--no-plan', 'do not make the pending plan (the plans and drift pages stay empty)'),
    ),
  ).action((opts: DashboardOptions) => runOf('dashboard').runDashboard(opts, apps));
}
