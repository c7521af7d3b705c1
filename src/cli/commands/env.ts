import type { Command } from 'commander';
import type { AppRunner } from '../app-runner';
import { addEngineOptions } from '../engine-options';
import type { EnvOptions } from './env-run';

/** What `env` runs, loaded when it runs rather than at every command line. */
function envRun(): typeof import('./env-run') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when it runs
  return require('./env-run') as typeof import('./env-run');
}

export function register(program: Command, apps: AppRunner): void {
  addEngineOptions(
    program
      .command('env <address> <module>')
      .description("the exact environment a machine module's process receives (secrets masked)")
      .option('--show-secrets', 'print secret values in clear')
      .option('--all', "also list the machine server's own environment, which the module inherits"),
  ).action((address: string, moduleName: string, opts: EnvOptions) => envRun().runEnv(address, moduleName, opts, apps));
}
