import type { Command } from 'commander';

/** What `validate` runs, loaded when it runs rather than at every command line. */
function validateRun(): typeof import('./validate-run') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when it runs
  return require('./validate-run') as typeof import('./validate-run');
}

/** `fleetform validate`: runs the app and reports every problem; exit 1 on any error. */
export function register(program: Command): void {
  program
    .command('validate')
    .description('Run the CDKTF app (the command in cdktf.json "app") and report every problem of the fleet')
    .action(() => validateRun().runValidate());
}
