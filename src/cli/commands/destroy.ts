import type { Command } from 'commander';
import type { AppRunner } from '../app-runner';
import { addEngineOptions, withWorkspace, type EngineCommandOptions } from '../workspace';
import { reviewAndApply } from './apply-plan';

export function register(program: Command, apps: AppRunner): void {
  addEngineOptions(
    program.command('destroy').description('delete everything the stacks manage').option('--auto-approve', 'destroy without asking'),
  ).action(async (opts: EngineCommandOptions & { autoApprove?: boolean }) => {
    await withWorkspace(opts, apps, async (ws) => {
      const release = await ws.engine.lock(
        ws.stacks.map((s) => s.name),
        'destroy',
      );
      try {
        const { plan, states } = await ws.engine.plan(ws.stacks, { refresh: true, destroy: true });
        await reviewAndApply(ws, plan, states, {
          autoApprove: Boolean(opts.autoApprove),
          saved: false,
          verb: 'destroy all these resources',
        });
      } finally {
        await release();
      }
    });
  });
}
