import { summarize, type Plan } from '../plan-model';
import { palette } from './colors';
import { holdOfChange, holdsByAddress, holdsSummary, holdText, waveOnlyHolds } from './holds';
import { refusedLine, renderResource, summaryLine } from './text';
import { showValue } from '../shown-value';

/** A pull-request comment: the summary in the open, each stack's details collapsed. */
export function renderPlanMarkdown(plan: Plan): string {
  const p = palette(false);
  const summary = summarize(plan.changes);
  // A plan with errors is refused: its summary says so rather than what it would do.
  const head = summary.problems > 0 ? `:x: **${refusedLine(summary)}**` : `**${summaryLine(summary, plan.destroy)}**`;
  const out: string[] = [`### fleetform ${plan.destroy ? 'destroy plan' : 'plan'}`, '', head, ''];
  if (summary.drifted > 0) out.push(`:warning: ${summary.drifted} resource(s) changed outside fleetform; apply reverts them.`, '');
  const held = holdsSummary(plan);
  if (held) out.push(`:hourglass: ${held}`, '');
  const holds = holdsByAddress(plan);
  for (const stack of plan.stacks) {
    const changes = plan.changes.filter((c) => c.stack === stack.name);
    const acting = changes.filter((c) => c.action !== 'no-op' || c.drift.length > 0 || c.problems.length > 0);
    const s = summarize(changes);
    out.push(
      `<details><summary>Stack <code>${stack.name}</code>: ${s.add} to add, ${s.change} to change, ${s.destroy} to destroy</summary>`,
      '',
    );
    if (acting.length === 0) out.push('No changes.', '');
    else {
      out.push('```diff');
      for (const c of acting) {
        for (const d of c.drift)
          out.push(`! ${c.address}: changed outside fleetform: ${d.path} = ${showValue(d.before)} -> ${showValue(d.after)}`);
        if (c.action !== 'no-op') out.push(...renderResource(p, c, holdOfChange(holds, c)).map((l) => l.replace(/^(\s*)([-+~])/, '$2$1')));
        for (const pr of c.problems) out.push(`! error: ${c.address}.${pr.path}: ${pr.message}`);
      }
      for (const h of waveOnlyHolds(plan).filter((x) => x.stack === stack.name)) out.push(`! ${h.address}: ${holdText(h)}`);
      out.push('```', '');
    }
    out.push('</details>', '');
  }
  return `${out.join('\n')}\n`;
}
