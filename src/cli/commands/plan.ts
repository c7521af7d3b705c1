import type { Command } from 'commander';
import type { AppRunner } from '../app-runner';
import { addEngineOptions } from '../engine-options';
import { addTargetOption } from '../target-flag';
import type { PlanOptions } from './plan-run';
import { runOf } from './runs';

const collect = (value: string, previous: string[]): string[] => [...previous, value];

export function register(program: Command, apps: AppRunner): void {
  addEngineOptions(
    addTargetOption(program.command('plan'))
      .description('show what apply would change, with drift made outside fleetform')
      .option('--json', 'print the plan as JSON (format_version 1.0)')
      .option('--markdown', 'print a collapsed summary for a pull-request comment')
      .option('--out <file>', 'save the plan for `fleetform apply FILE`')
      .option('--detailed-exitcode', 'exit 0 without changes, 2 with changes, 1 on error')
      .option('--refresh <bool>', 'read the service (false: trust the state)', 'true')
      .option(
        '--window <spec>',
        "also check this window, as the reconciler's --window flag (KIND:CRON:DURATION[:TZ]; repeatable)",
        collect,
        [],
      )
      .option(
        '--machine <name>',
        'also show what that machine will run differently: its config resolved with its fragments, before and after',
      ),
  ).action((opts: PlanOptions) => runOf('plan').runPlan(opts, apps));
}
