import type { Command } from 'commander';
import type { AppRunner } from '../app-runner';
import { addEngineOptions } from '../engine-options';
import type { EnvOptions } from './env-run';
import { runOf } from './runs';

export function register(program: Command, apps: AppRunner): void {
  addEngineOptions(
    program
      .command('env <address> <module>')
      .description("the exact environment a machine module's process receives (secrets masked)")
      .option('--show-secrets', 'print secret values in clear')
      .option('--all', "also list the machine server's own environment, which the module inherits"),
  ).action((address: string, moduleName: string, opts: EnvOptions) => runOf('env').runEnv(address, moduleName, opts, apps));
}
