import type { Command } from 'commander';
import type { AppRunner } from '../app-runner';
import { addEngineOptions } from '../engine-options';
import type { DestroyOptions } from './destroy-run';

/** What `destroy` runs, loaded when it runs rather than at every command line. */
function destroyRun(): typeof import('./destroy-run') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when it runs
  return require('./destroy-run') as typeof import('./destroy-run');
}

export function register(program: Command, apps: AppRunner): void {
  addEngineOptions(
    program.command('destroy').description('delete everything the stacks manage').option('--auto-approve', 'destroy without asking'),
  ).action((opts: DestroyOptions) => destroyRun().runDestroy(opts, apps));
}
