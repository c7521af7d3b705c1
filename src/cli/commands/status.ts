import type { Command } from 'commander';
import type { StatusOptions } from './status-run';

/** What `status` runs, loaded when it runs rather than at every command line. */
function statusRun(): typeof import('./status-run') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when it runs
  return require('./status-run') as typeof import('./status-run');
}

export function register(program: Command): void {
  program
    .command('status')
    .description(
      'each machine: online state, config revision it runs against the latest, module and resource health; and the module card of every machine module',
    )
    .option('--stack <name...>', 'only these stacks')
    .option('--json', 'print machines and module cards as JSON')
    .option('--watch', 'refresh until interrupted (in place on a terminal)')
    .option('--interval <duration>', 'refresh interval of --watch, e.g. 2s or 500ms', '2s')
    .action((opts: StatusOptions) => statusRun().runStatus(opts));
}
