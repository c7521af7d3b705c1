import type { Command } from 'commander';
import { runOf } from './runs';

export function register(program: Command): void {
  const rollout = program.command('rollout').description('where staged rollouts stand, and rolling one back by hand');
  rollout
    .command('status')
    .description("each stack's last rollout: its status, the wave it is in, and each machine's result")
    .option('--stack <name...>', 'only these stacks')
    .option('--json', 'print the journals as JSON')
    .action((opts: { stack?: string[]; json?: boolean }) => runOf('rollout').runRolloutStatus(opts));
  rollout
    .command('abort')
    .description('roll a running or halted rollout back: every machine it changed goes back to the config it had')
    .requiredOption('--stack <name>', 'the stack whose rollout to roll back')
    .option(
      '--rollout <name>',
      "a fragment rollout of the stack to roll back (its machines go back to the version they followed), instead of the stack's own",
    )
    .option('--lock-timeout <duration>', 'how long to wait for the state lock (e.g. 30s, 2m)', '0s')
    .option(
      '--break-stale-lock',
      'take over a state lock left by a fleetform that is no longer running on this machine (e.g. a killed apply)',
    )
    .action((opts: { stack: string; rollout?: string; lockTimeout: string; breakStaleLock?: boolean }) =>
      runOf('rollout-abort').runRolloutAbort(opts),
    );
  rollout
    .command('resume <stack>')
    .description("release a rollout held by a pause step or its schedule's stop: the next apply goes on from the wave it was held at")
    .option('--rollout <name>', "a fragment rollout of the stack to release, instead of the stack's own")
    .option('--lock-timeout <duration>', 'how long to wait for the state lock (e.g. 30s, 2m)', '0s')
    .option('--break-stale-lock', 'take over a state lock left by a fleetform that is no longer running on this machine')
    .action((stack: string, opts: { rollout?: string; lockTimeout: string; breakStaleLock?: boolean }) =>
      runOf('rollout-resume').runRolloutResume(stack, opts),
    );
}
