import type { Command } from 'commander';
import type { AppRunner } from '../app-runner';
import { addEngineOptions, type EngineCommandOptions } from '../engine-options';

/** What `import` runs, loaded when it runs rather than at every command line. */
function importRun(): typeof import('./import-run') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when it runs
  return require('./import-run') as typeof import('./import-run');
}

export function register(program: Command, apps: AppRunner): void {
  addEngineOptions(
    program.command('import <address> <id>').description('adopt an existing object of the service at a declared address'),
  ).action((address: string, id: string, opts: EngineCommandOptions) => importRun().runImport(address, id, opts, apps));
}
