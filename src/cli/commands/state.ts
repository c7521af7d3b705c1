import type { Command } from 'commander';
import { register as registerMigrate } from './state-migrate';
import { runOf } from './runs';

const LOCK_TIMEOUT_HELP = 'how long to wait for the state lock (e.g. 30s, 2m)';

export function register(program: Command): void {
  const state = program.command('state').description('inspect and edit fleetform state');
  registerMigrate(state);
  state
    .command('list')
    .description('addresses fleetform manages, per stack')
    .option('--stack <name...>', 'only these stacks')
    .action((opts: { stack?: string[] }) => runOf('state').runStateList(opts));
  state
    .command('show <address>')
    .description('the attributes last applied to one resource (secrets masked)')
    .option('--stack <name>', 'the stack holding it')
    .action((address: string, opts: { stack?: string }) => runOf('state').runStateShow(address, opts));
  state
    .command('mv <source> <destination>')
    .description('manage a remote object at a new address (after renaming its construct), without touching the service')
    .option('--stack <name>', 'the stack holding it')
    .option('--lock-timeout <duration>', LOCK_TIMEOUT_HELP, '0s')
    .action((source: string, destination: string, opts: { stack?: string; lockTimeout: string }) =>
      runOf('state').runStateMove(source, destination, opts),
    );
  state
    .command('rm <address>')
    .description('stop managing a resource without deleting it on the service')
    .option('--stack <name>', 'the stack holding it')
    .option('--lock-timeout <duration>', LOCK_TIMEOUT_HELP, '0s')
    .action((address: string, opts: { stack?: string; lockTimeout: string }) => runOf('state').runStateRemove(address, opts));
}
