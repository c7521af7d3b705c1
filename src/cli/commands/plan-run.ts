/** What `fleetform plan` does when it runs, loaded then; its name, flags and help are in plan.ts. */
import type { AppRunner } from '../app-runner';
import {
  checkedAgainstWindows,
  colorWanted,
  hasChanges,
  renderPlanJson,
  renderPlanMarkdown,
  renderPlanText,
  summarize,
} from '../../engine';
import { machineRunDiff, plannedMachineNames, renderMachineRunDiff } from '../../engine/readings';
import { FleetformError } from '../../domain/errors';
import { recordPhase, timePhase } from '../phase-timings';
import { writeSavedPlan } from '../saved-plan';
import { forgetShownPlan, rememberShownPlan } from '../shown-plan';
import { targetsGiven, type TargetOptions } from '../target-flag';
import { booleanFlag, type EngineCommandOptions } from '../engine-options';
import { serviceLine, withWorkspace } from '../workspace';

export interface PlanOptions extends EngineCommandOptions, TargetOptions {
  json?: boolean;
  markdown?: boolean;
  out?: string;
  detailedExitcode?: boolean;
  refresh: string | boolean;
  machine?: string;
  window: string[];
}

/** `fleetform plan`: plans every stack (or the targets), prints the plan, and saves it with --out. */
export async function runPlan(opts: PlanOptions, apps: AppRunner): Promise<void> {
  const refresh = booleanFlag(opts.refresh, '--refresh');
  await withWorkspace(opts, apps, async (ws) => {
    const release = await ws.engine.lock(
      ws.stacks.map((s) => s.name),
      'plan',
    );
    try {
      const targets = targetsGiven(opts);
      const planned = await ws.engine.plan(ws.stacks, { refresh, destroy: false, ...(targets ? { targets } : {}) });
      const plan = checkedAgainstWindows(planned.plan, ws.stacks, planned.states, opts.window);
      const { stateS, planS } = ws.engine.planStats();
      recordPhase('state', stateS);
      recordPhase('reads', planS);
      await timePhase('render', () => {
        if (opts.json) process.stdout.write(renderPlanJson(plan));
        else if (opts.markdown) process.stdout.write(renderPlanMarkdown(plan));
        else process.stdout.write(serviceLine(ws.connection) + renderPlanText(plan, { color: colorWanted(process.stdout, process.env) }));
      });
      if (!opts.json && !opts.markdown && !targets && summarize(plan.changes).problems === 0)
        await rememberShownPlan(ws.cwd, renderPlanText(plan, { color: false }));
      else await forgetShownPlan(ws.cwd);
      if (opts.machine !== undefined) {
        const diff = await machineRunDiff(plan, opts.machine, ws.connection.client);
        if (!diff) {
          throw new FleetformError(`the plan has no machine named ${opts.machine}`, {
            path: '--machine',
            hint: `its machines: ${plannedMachineNames(plan).join(', ') || 'none'}`,
          });
        }
        if (!opts.json && !opts.markdown) process.stdout.write(`\n${renderMachineRunDiff(diff)}`);
      }
      const summary = summarize(plan.changes);
      if (summary.problems > 0) {
        process.exitCode = 1;
        return;
      }
      if (opts.out) {
        await writeSavedPlan(opts.out, plan);
        if (!opts.json && !opts.markdown)
          process.stdout.write(`\nSaved the plan to ${opts.out}. Apply exactly it with: fleetform apply ${opts.out}\n`);
      }
      process.exitCode = opts.detailedExitcode && hasChanges(plan) ? 2 : 0;
    } finally {
      await release();
    }
  });
}
