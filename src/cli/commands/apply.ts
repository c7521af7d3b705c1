import type { Command } from 'commander';
import type { AppRunner } from '../app-runner';
import { readSavedPlan } from '../saved-plan';
import { FleetformError } from '../../domain/errors';
import { addTargetOption, targetsGiven, type TargetOptions } from '../target-flag';
import { addEngineOptions, withWorkspace, type EngineCommandOptions } from '../workspace';
import { reviewAndApply } from './apply-plan';

interface ApplyOptions extends EngineCommandOptions, TargetOptions {
  autoApprove?: boolean;
  report?: string;
}

export function register(program: Command, apps: AppRunner): void {
  addEngineOptions(
    addTargetOption(program.command('apply [planfile]'))
      .description('make the fleet match the configuration (or apply exactly a saved plan)')
      .option('--auto-approve', 'apply without asking')
      .option(
        '--wait-for-training <duration>',
        'wait up to this long (e.g. 5m) for the training jobs whose models machines deploy; default: do not wait (those machines stay pending until the next apply)',
      )
      .option('--report <file>', 'write the outcome as JSON (failures, and each rollout wave by wave)'),
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
          const { plan, states } = await ws.engine.plan(ws.stacks, { refresh: true, destroy: false, ...(targets ? { targets } : {}) });
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
