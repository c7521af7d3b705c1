import type { Command } from 'commander';
import { runOf } from './runs';

/** The `config` command group, created by whichever `config ...` sub-command registers first. */
function configGroup(program: Command): Command {
  return program.commands.find((c) => c.name() === 'config') ?? program.command('config').description('Work with machine configurations');
}

/** `fleetform config validate FILE.json`: checks a raw machine config as the service stores it. */
export function register(program: Command): void {
  configGroup(program)
    .command('validate')
    .description('Validate a machine config JSON file (as the service stores it) and report every problem')
    .argument('<file>', 'machine config JSON file')
    .option('--allow-unpinned-modules', 'registry modules may omit "version"')
    .option(
      '--warn-only',
      'report what the machine will certainly fail (one module or resource) as warnings: exit 1 only for a config the service refuses',
    )
    .action((file: string, opts: { allowUnpinnedModules?: boolean; warnOnly?: boolean }) =>
      runOf('config-validate').runConfigValidate(file, opts),
    );
}
