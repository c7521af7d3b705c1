import type { Command } from 'commander';
import type { AppRunner } from '../app-runner';
import { checkedAgainstWindows } from '../../engine/windows/plan-windows';
import { readSavedPlan } from '../saved-plan';
import { FleetformError } from '../../domain/errors';
import { addTargetOption, targetsGiven, type TargetOptions } from '../target-flag';
import { addEngineOptions, withWorkspace, type EngineCommandOptions } from '../workspace';
import { reviewAndApply } from './apply-plan';

interface ApplyOptions extends EngineCommandOptions, TargetOptions {
  autoApprove?: boolean;
  report?: string;
  window: string[];
  ignoreWindows?: boolean;
}

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
      .option('--ignore-windows', "write what the stacks' and locations' windows hold now, and let a rollout run through a window closing"),
  ).action(async (planfile: string | undefined, opts: ApplyOptions) => {
    await withWorkspace(opts, apps, async (ws) => {
      const targets = targetsGiven(opts);
      if (planfile && targets)
        throw new FleetformError('--target cannot be given with a saved plan: it applies exactly what was planned', {
          path: '--target',
          hint: `plan with --target and --out FILE, then \`fleetform apply FILE\``,
        });
      const saved = planfile ? await readSavedPlan(planfile) : undefined;
      const names = saved ? saved.stacks.map((s) => s.name) : ws.stacks.map((s) => s.name);
      const release = await ws.engine.lock(names, 'apply');
      const windows = { flags: opts.window, ignore: Boolean(opts.ignoreWindows) };
      try {
        if (saved) {
          const stacks = ws.stacks.filter((s) => names.includes(s.name));
          const states = await ws.engine.assertFresh(saved, stacks);
          // Saved earlier, the plan is checked against the windows as they are now.
          const plan = checkedAgainstWindows(saved, stacks, states, opts.window);
          await reviewAndApply({ ...ws, stacks }, plan, states, {
            windows,
            autoApprove: true,
            saved: true,
            verb: 'perform these actions',
            ...(opts.report ? { report: opts.report } : {}),
          });
        } else {
          const planned = await ws.engine.plan(ws.stacks, { refresh: true, destroy: false, ...(targets ? { targets } : {}) });
          const plan = checkedAgainstWindows(planned.plan, ws.stacks, planned.states, opts.window);
          await reviewAndApply(ws, plan, planned.states, {
            windows,
            autoApprove: Boolean(opts.autoApprove),
            saved: false,
            verb: 'perform these actions',
            ...(opts.report ? { report: opts.report } : {}),
          });
        }
      } finally {
        await release();
      }
    });
  });
}
