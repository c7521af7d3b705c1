import type { Command } from 'commander';
import type { OutputOptions } from './output-run';

/** What `output` runs, loaded when it runs rather than at every command line. */
function outputRun(): typeof import('./output-run') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when it runs
  return require('./output-run') as typeof import('./output-run');
}

export function register(program: Command): void {
  program
    .command('output [name]')
    .description('the outputs (TerraformOutput) the last apply evaluated; sensitive ones are never shown')
    .option('--json', 'print them as JSON')
    .option('--stack <name...>', 'only these stacks')
    .action((name: string | undefined, opts: OutputOptions) => outputRun().runOutput(name, opts));
}
