import type { Command } from 'commander';
import type { OutputOptions } from './output-run';
import { runOf } from './runs';

export function register(program: Command): void {
  program
    .command('output [name]')
    .description('the outputs (TerraformOutput) the last apply evaluated; sensitive ones are never shown')
    .option('--json', 'print them as JSON')
    .option('--stack <name...>', 'only these stacks')
    .action((name: string | undefined, opts: OutputOptions) => runOf('output').runOutput(name, opts));
}
