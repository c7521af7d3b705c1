import type { Command } from 'commander';
import { runOf } from './runs';

/** `fleetform validate`: runs the app and reports every problem; exit 1 on any error. */
export function register(program: Command): void {
  program
    .command('validate')
    .description('Run the CDKTF app (the command in cdktf.json "app") and report every problem of the fleet')
    .action(() => runOf('validate').runValidate());
}
