import type { Command } from 'commander';
import type { StatusOptions } from './status-run';
import { runOf } from './runs';

export function register(program: Command): void {
  program
    .command('status')
    .description(
      "each machine: online state, config revision it runs against the latest, module and resource health; the module card of every machine module; each training job's progress and each data pipeline's last runs",
    )
    .option('--stack <name...>', 'only these stacks')
    .option('--json', 'print machines, module cards, training jobs and data pipelines as JSON')
    .option('--watch', 'refresh until interrupted (in place on a terminal)')
    .option('--interval <duration>', 'refresh interval of --watch, e.g. 2s or 500ms', '2s')
    .action((opts: StatusOptions) => runOf('status').runStatus(opts));
}
