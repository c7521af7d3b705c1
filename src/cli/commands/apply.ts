import type { Command } from 'commander';
import type { AppRunner } from '../app-runner';
import { readSavedPlan } from '../saved-plan';
import { addEngineOptions, withWorkspace, type EngineCommandOptions } from '../workspace';
import { reviewAndApply } from './apply-plan';

interface ApplyOptions extends EngineCommandOptions {
  autoApprove?: boolean;
  report?: string;
}

export function register(program: Command, apps: AppRunner): void {
  addEngineOptions(
    program
      .command('apply [planfile]')
      .description('make the fleet match the configuration (or apply exactly a saved plan)')
      .option('--auto-approve', 'apply without asking')
      .option(
        '--wait-for-training <duration>',
        'wait up to this long (e.g. 5m) for the training jobs whose models machines deploy; default: do not wait (those machines stay pending until the next apply)',
      )
      .option('--report <file>', 'write the outcome as JSON (failures, and each rollout wave by wave)'),
  ).action(async (planfile: string | undefined, opts: ApplyOptions) => {
    await withWorkspace(opts, apps, async (ws) => {
      const saved = planfile ? await readSavedPlan(planfile) : undefined;
      const names = saved ? saved.stacks.map((s) => s.name) : ws.stacks.map((s) => s.name);
      const release = await ws.engine.lock(names, 'apply');
      try {
        if (saved) {
          const stacks = ws.stacks.filter((s) => names.includes(s.name));
          const states = await ws.engine.assertFresh(saved, stacks);
          await reviewAndApply({ ...ws, stacks }, saved, states, {
            autoApprove: true,
            saved: true,
            verb: 'perform these actions',
            ...(opts.report ? { report: opts.report } : {}),
          });
        } else {
          const { plan, states } = await ws.engine.plan(ws.stacks, { refresh: true, destroy: false });
          await reviewAndApply(ws, plan, states, {
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
