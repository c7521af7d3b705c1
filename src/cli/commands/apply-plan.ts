import { FleetformError } from '../../domain/errors';
import {
  colorWanted,
  formatOutputs,
  hasChanges,
  heldCount,
  type Plan,
  refuseHeld,
  renderPlanText,
  type State,
  type StateOutput,
  summarize,
  summaryLine,
  windowsBoundary,
} from '../../engine';
import { wasJustShown } from '../shown-plan';
import { confirm } from '../confirm';
import { outcomeLines, pendingDeletions } from '../pending-deletions';
import { consoleReporter } from '../reporter';
import { rolloutBoard, rolloutPrinter, rolloutSummaryLines, writeApplyReport } from '../rollout-output';
import { serviceLine, type Workspace } from '../workspace';

const out = (line: string) => process.stdout.write(`${line}\n`);

/** Shows a plan, asks, applies it and prints the outcome; shared by apply and destroy. */
export async function reviewAndApply(
  ws: Workspace,
  plan: Plan,
  states: Map<string, State>,
  options: {
    autoApprove: boolean;
    saved: boolean;
    verb: string;
    report?: string;
    /** Set by apply: the windows it respects (`--window` flags over the stacks' own), or ignores. */
    windows?: { readonly flags: readonly string[]; readonly ignore: boolean };
    /** False: a rollout whose schedule starts later is left waiting rather than waited for. */
    waitForSchedule?: boolean;
  },
): Promise<void> {
  const first = !plan.destroy && isFirstApply(states);
  if (!options.saved) await showPlan(ws, plan, options.autoApprove && !plan.destroy);
  // A targeted plan applies to the stacks it planned only: the others are neither written nor resumed.
  const stacks = plan.targets ? ws.stacks.filter((s) => plan.stacks.some((h) => h.name === s.name)) : ws.stacks;
  const summary = summarize(plan.changes);
  if (summary.problems > 0)
    throw new FleetformError(`the plan has ${summary.problems} problem(s); nothing was changed`, {
      hint: 'fix the errors above and plan again',
    });
  const windows = options.windows;
  if (windows && !windows.ignore) refuseHeld(plan);
  if (windows?.ignore && heldCount(plan) > 0) out(`Warning: --ignore-windows: writing ${heldCount(plan)} change(s) the windows hold now.`);
  const boundary = {
    ...(windows && !windows.ignore ? { waveBoundary: windowsBoundary(plan, stacks, states, windows.flags) } : {}),
    ...(options.waitForSchedule === false ? { waitForSchedule: false } : {}),
  };
  if (!hasChanges(plan)) {
    out(options.saved ? 'The saved plan has no changes.' : '');
    // Nothing to change, but outputs may be new: they are evaluated and kept all the same.
    // An interrupted rollout goes on even without new changes.
    const outcome = await ws.engine.apply(plan, stacks, states, consoleReporter(0, out), rolloutProgress(), boundary);
    if (options.report) await writeApplyReport(options.report, outcome);
    for (const line of rolloutSummaryLines(outcome.rollouts)) out(line);
    if (outcome.failed.length > 0) process.exitCode = 1;
    printOutputs(outcome.outputs);
    return;
  }
  if (!options.saved && !(await confirm(`\nDo you want to ${options.verb}?`, options.autoApprove, plan.destroy ? 'destroy' : 'apply'))) {
    out('Apply cancelled.');
    process.exitCode = 1;
    return;
  }
  const total = plan.changes.filter((c) => c.action !== 'no-op').length;
  const reporter = consoleReporter(total, out);
  const outcome = await ws.engine.apply(plan, stacks, states, reporter, rolloutProgress(), boundary);
  if (options.report) await writeApplyReport(options.report, outcome);
  out('');
  for (const line of rolloutSummaryLines(outcome.rollouts)) out(line);
  if (outcome.failed.length > 0) {
    out(`Apply failed: ${outcome.failed.length} resource(s) failed, ${outcome.skipped.length} skipped, ${outcome.applied} applied.`);
    for (const f of outcome.failed) out(`  - ${f.address}`);
    process.exitCode = 1;
    return;
  }
  const pending = await pendingDeletions(ws.backend, [...new Set(plan.changes.map((c) => c.stack))]);
  for (const line of outcomeLines(summary, pending, plan.destroy)) out(line);
  printOutputs(outcome.outputs);
  if (first) for (const line of nextSteps(plan)) out(line);
}

/** Whether the stacks held nothing before this apply: a project applied for the first time. */
function isFirstApply(states: Map<string, State>): boolean {
  return [...states.values()].every((s) => Object.keys(s.resources).length === 0);
}

/** What to run after a first apply, by what it made. */
function nextSteps(plan: Plan): string[] {
  const types = new Set(plan.changes.filter((c) => c.action === 'create').map((c) => c.type));
  const lines = ['', 'Next:'];
  if (types.has('fleetform_machine') || types.has('fleetform_training_job') || types.has('fleetform_custom_training_job'))
    lines.push('  npx fleetform status            each machine: online, its config, health; each training job (--watch follows)');
  lines.push('  npx fleetform plan              after editing the stacks: what an apply would change');
  lines.push('  npx fleetform destroy           removes what the stacks made (training jobs they retain are kept)');
  return lines;
}

/**
 * Prints the plan, or only its summary when it is exactly the one `fleetform plan` printed
 * just before in this project and nothing is asked (`plan && apply --auto-approve`).
 */
async function showPlan(ws: Workspace, plan: Plan, unasked: boolean): Promise<void> {
  if (unasked && (await wasJustShown(ws.cwd, renderPlanText(plan, { color: false })))) {
    out(`${serviceLine(ws.connection)}The plan is the one \`fleetform plan\` printed above; nothing changed since.`);
    out(summaryLine(summarize(plan.changes)));
    return;
  }
  process.stdout.write(serviceLine(ws.connection) + renderPlanText(plan, { color: colorWanted(process.stdout, process.env) }));
}

/** Rollout progress: a board updated in place on a terminal, one line per event otherwise. */
function rolloutProgress() {
  return process.stdout.isTTY ? rolloutBoard(process.stdout) : rolloutPrinter(out);
}

/** Terraform's `Outputs:` block: one `name = value` line per output, grouped by stack when there are several. */
function printOutputs(byStack: Readonly<Record<string, Readonly<Record<string, StateOutput>>>>): void {
  const stacks = Object.keys(byStack);
  if (stacks.length === 0) return;
  out('\nOutputs:');
  for (const stack of stacks) {
    out(stacks.length > 1 ? `\n# stack ${stack}` : '');
    for (const line of formatOutputs(byStack[stack] ?? {})) out(line);
  }
}
