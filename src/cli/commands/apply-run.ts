/** What `fleetform apply` does when it runs, loaded then; its name, flags and help are in apply.ts. */
import type { AppRunner } from '../app-runner';
import { checkedAgainstWindows } from '../../engine';
import { readSavedPlan } from '../saved-plan';
import { FleetformError } from '../../domain/errors';
import type { EngineCommandOptions } from '../engine-options';
import { targetsGiven, type TargetOptions } from '../target-flag';
import { withWorkspace } from '../workspace';
import { reviewAndApply } from './apply-plan';

export interface ApplyOptions extends EngineCommandOptions, TargetOptions {
  autoApprove?: boolean;
  report?: string;
  window: string[];
  ignoreWindows?: boolean;
  /** False with --no-wait-for-schedule. */
  waitForSchedule?: boolean;
}

/** `fleetform apply`: applies a fresh plan of the stacks (or the targets), or exactly a saved plan. */
export async function runApply(planfile: string | undefined, opts: ApplyOptions, apps: AppRunner): Promise<void> {
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
    const schedule = opts.waitForSchedule === false ? { waitForSchedule: false } : {};
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
          ...schedule,
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
          ...schedule,
          ...(opts.report ? { report: opts.report } : {}),
        });
      }
    } finally {
      await release();
    }
  });
}
