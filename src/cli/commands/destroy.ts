import type { Command } from 'commander';
import type { AppRunner } from '../app-runner';
import { addEngineOptions } from '../engine-options';
import type { DestroyOptions } from './destroy-run';
import { runOf } from './runs';

export function register(program: Command, apps: AppRunner): void {
  addEngineOptions(
    program.command('destroy').description('delete everything the stacks manage').option('--auto-approve', 'destroy without asking'),
  ).action((opts: DestroyOptions) => runOf('destroy').runDestroy(opts, apps));
}
