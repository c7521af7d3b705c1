import type { Command } from 'commander';
import type { AppRunner } from '../app-runner';
import { addEngineOptions } from '../engine-options';
import { addTargetOption } from '../target-flag';
import type { ApplyOptions } from './apply-run';
import { runOf } from './runs';

const collect = (value: string, previous: string[]): string[] => [...previous, value];

export function register(program: Command, apps: AppRunner): void {
  addEngineOptions(
    addTargetOption(program.command('apply [planfile]'))
      .description('make the fleet match the configuration (or apply exactly a saved plan)')
      .option('--auto-approve', 'apply without asking')
      .option(
        '--wait-for-training <duration>',
        'wait up to this long (e.g. 5m) for the training jobs whose models machines deploy; default: do not wait (those machines stay pending until the next apply)',
      )
      .option('--report <file>', 'write the outcome as JSON (failures, and each rollout wave by wave)')
      .option(
        '--window <spec>',
        "also respect this window, as the reconciler's --window flag (KIND:CRON:DURATION[:TZ]; repeatable)",
        collect,
        [],
      )
      .option('--ignore-windows', "write what the stacks' and locations' windows hold now, and let a rollout run through a window closing")
      .option(
        '--no-wait-for-schedule',
        'leave a rollout whose schedule starts later waiting (the next apply at or after its start goes on) rather than wait for it',
      ),
  ).action((planfile: string | undefined, opts: ApplyOptions) => runOf('apply').runApply(planfile, opts, apps));
}
