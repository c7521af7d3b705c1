import type { Command } from 'commander';
import type { AppRunner } from '../app-runner';
import { addEngineOptions, type EngineCommandOptions } from '../engine-options';
import { runOf } from './runs';

export function register(program: Command, apps: AppRunner): void {
  addEngineOptions(
    program.command('import <address> <id>').description('adopt an existing object of the service at a declared address'),
  ).action((address: string, id: string, opts: EngineCommandOptions) => runOf('import').runImport(address, id, opts, apps));
}
