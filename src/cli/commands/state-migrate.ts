import type { Command } from 'commander';
import type { StateMigrateOptions } from './state-migrate-run';
import { runOf } from './runs';

/**
 * Copies every local stack state into the backend the stacks now declare (PostgreSQL),
 * checks each copy by reading it back, then moves the local files into a backup folder
 * beside them. A stack the backend already holds is left alone when it holds the same
 * lineage at the same or a later serial, and refused otherwise.
 */
export function register(state: Command): void {
  state
    .command('migrate')
    .description('copy local state into the backend the stacks declare (PgBackend), verify it, keep the local files as a backup')
    .option('--stack <name...>', 'only these stacks')
    .option('--lock-timeout <duration>', 'how long to wait for each state lock (e.g. 30s, 2m)', '0s')
    .option('--synth-out <dir>', 'read the backend from this synthesized output instead of running the app')
    .action((opts: StateMigrateOptions) => runOf('state-migrate').runStateMigrate(opts));
}
