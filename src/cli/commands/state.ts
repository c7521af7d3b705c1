import type { Command } from 'commander';
import { register as registerMigrate } from './state-migrate';

const LOCK_TIMEOUT_HELP = 'how long to wait for the state lock (e.g. 30s, 2m)';

/** What `state` runs, loaded when it runs rather than at every command line. */
function stateRun(): typeof import('./state-run') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when it runs
  return require('./state-run') as typeof import('./state-run');
}

export function register(program: Command): void {
  const state = program.command('state').description('inspect and edit fleetform state');
  registerMigrate(state);
  state
    .command('list')
    .description('addresses fleetform manages, per stack')
    .option('--stack <name...>', 'only these stacks')
    .action((opts: { stack?: string[] }) => stateRun().runStateList(opts));
  state
    .command('show <address>')
    .description('the attributes last applied to one resource (secrets masked)')
    .option('--stack <name>', 'the stack holding it')
    .action((address: string, opts: { stack?: string }) => stateRun().runStateShow(address, opts));
  state
    .command('mv <source> <destination>')
    .description('manage a remote object at a new address (after renaming its construct), without touching the service')
    .option('--stack <name>', 'the stack holding it')
    .option('--lock-timeout <duration>', LOCK_TIMEOUT_HELP, '0s')
    .action((source: string, destination: string, opts: { stack?: string; lockTimeout: string }) =>
      stateRun().runStateMove(source, destination, opts),
    );
  state
    .command('rm <address>')
    .description('stop managing a resource without deleting it on the service')
    .option('--stack <name>', 'the stack holding it')
    .option('--lock-timeout <duration>', LOCK_TIMEOUT_HELP, '0s')
    .action((address: string, opts: { stack?: string; lockTimeout: string }) => stateRun().runStateRemove(address, opts));
}
