import type { AttributeChange } from '../diff';
import { isObject, type JsonObject, type JsonValue } from '../json';
import { summarize, type Action, type Plan, type PlanSummary, type ResourceChange, type WindowHold } from '../plan-model';
import { rolloutPlanLines } from '../rollout/plan';
import { palette, type Palette } from './colors';
import { holdOfChange, holdsByAddress, holdsSummary, holdText, waveOnlyHolds } from './holds';
import { redact, showValue } from '../shown-value';

const SYMBOL: Record<Action, string> = {
  create: '+',
  update: '~',
  delete: '-',
  replace: '-/+',
  forget: '.',
  adopt: '>',
  move: '>',
  'no-op': ' ',
};
const PHRASE: Record<Action, string> = {
  create: 'will be created',
  update: 'will be updated in-place',
  delete: 'will be destroyed',
  replace: 'must be replaced',
  forget: 'will be removed from state (the remote object is kept)',
  adopt: 'was adopted: an interrupted create had made it, it is recorded in state',
  move: 'is recorded at its new address (nothing changes on the service)',
  'no-op': 'is up to date',
};

function colorFor(p: Palette, action: Action | AttributeChange['kind']): (s: string) => string {
  if (action === 'create' || action === 'add') return p.green;
  if (action === 'delete' || action === 'remove') return p.red;
  if (action === 'replace') return p.yellow;
  if (action === 'forget') return p.dim;
  return p.yellow;
}

function attributeLine(p: Palette, c: AttributeChange, pad: string): string {
  const path = c.path || '(whole)';
  if (c.kind === 'add') return colorFor(p, 'add')(`${pad}+ ${path} = ${showValue(c.after, `${pad}    `)}`);
  if (c.kind === 'remove') return colorFor(p, 'remove')(`${pad}- ${path} = ${showValue(c.before, `${pad}    `)}`);
  return colorFor(p, 'change')(`${pad}~ ${path} = ${showValue(c.before, `${pad}    `)} -> ${showValue(c.after, `${pad}    `)}`);
}

/** Top-level attributes of a created or destroyed object, one line each. */
function wholeObjectLines(p: Palette, obj: JsonObject | null, kind: 'add' | 'remove', pad: string): string[] {
  if (!obj || !isObject(obj)) return [];
  return Object.keys(obj)
    .sort()
    .map((k) => attributeLine(p, kind === 'add' ? { path: k, kind, after: obj[k] } : { path: k, kind, before: obj[k] }, pad));
}

function headline(c: ResourceChange): string {
  if (c.movedFrom) return `${c.movedFrom} has moved to ${c.address}${c.action === 'move' ? '' : ` and ${PHRASE[c.action]}`}`;
  if (c.deposed) return `${c.address} (deposed object: its replacement exists, its delete failed) ${PHRASE[c.action]}`;
  if (c.adopted?.foundAs === 'retained')
    return `${c.address} is taken back into state: an earlier destroy kept it (retain_on_delete)${c.action === 'adopt' ? '' : ` and it ${PHRASE[c.action]}`}`;
  if (c.adopted)
    return `${c.address} was adopted${c.action === 'adopt' ? ': an interrupted create had made it, it is recorded in state' : ` and ${PHRASE[c.action]}`}`;
  return `${c.address} ${PHRASE[c.action]}`;
}

export function renderResource(p: Palette, c: ResourceChange, hold?: WindowHold): string[] {
  const color = colorFor(p, c.action);
  const lines = [p.bold(`  # ${headline(c)}`)];
  if (hold) lines.push(p.yellow(`  #   ${holdText(hold)}`));
  if (c.adopted && c.adopted.foundAs !== 'retained' && c.action !== 'adopt')
    lines.push(p.dim(`  #   adopted: an interrupted create had made it; found on the service by name`));
  for (const reason of c.replaceReasons) lines.push(p.red(`  #   replacement forced by: ${reason}`));
  for (const [k, v] of Object.entries(c.facts)) lines.push(p.dim(`  #   ${k}: ${v}`));
  const symbol = c.deposed ? `${SYMBOL[c.action]} deposed` : SYMBOL[c.action];
  lines.push(color(`  ${symbol} resource "${c.type}" "${c.address.slice(c.type.length + 1)}" {`));
  const pad = '      ';
  if (c.action === 'create') lines.push(...wholeObjectLines(p, c.after, 'add', pad));
  else if (c.action === 'delete' || c.action === 'forget') lines.push(...wholeObjectLines(p, c.before, 'remove', pad));
  else for (const ch of c.changes) lines.push(attributeLine(p, ch, pad));
  for (const n of c.notes) {
    const text = `${pad}# ${n.level === 'warning' ? 'warning: ' : ''}${n.path ? `${n.path}: ` : ''}${n.message}`;
    const shown = n.value === undefined ? [] : noteValueLines(n.value, `${pad}#   `);
    for (const line of [text, ...shown]) lines.push(n.level === 'warning' ? p.yellow(line) : p.dim(line));
  }
  lines.push(color('    }'));
  return lines;
}

/** A note's value, one line per line of its JSON, each after `lead`. */
function noteValueLines(value: JsonValue, lead: string): string[] {
  const text = isObject(value) || Array.isArray(value) ? JSON.stringify(redact(value), null, 2) : showValue(value);
  return text.split('\n').map((line) => `${lead}${line}`);
}

export function summaryLine(s: PlanSummary, destroy = false): string {
  const forget = s.forget > 0 ? `, ${s.forget} to forget` : '';
  const adopt = s.adopt > 0 ? `, ${s.adopt} adopted` : '';
  const move = s.move > 0 ? `, ${s.move} moved` : '';
  const head = destroy ? 'Destroy plan' : 'Plan';
  return `${head}: ${s.add} to add, ${s.change} to change, ${s.destroy} to destroy${forget}${adopt}${move}.`;
}

/** The summary of a plan with errors: nothing of it can be applied. */
export function refusedLine(s: PlanSummary): string {
  const errors = `${s.problems} error${s.problems === 1 ? '' : 's'}`;
  return `Plan refused: ${errors} above; nothing will be changed until ${s.problems === 1 ? 'it is' : 'they are'} fixed (the plan as it stands: ${s.add} to add, ${s.change} to change, ${s.destroy} to destroy).`;
}

/** The plan as Terraform users read it: drift first, then actions, then the summary line. */
export function renderPlanText(plan: Plan, options: { color: boolean }): string {
  const p = palette(options.color);
  const out: string[] = [];
  if (plan.targets)
    out.push(
      p.yellow(
        `Warning: a targeted plan (--target ${plan.targets.join(', ')}): only these resources were read and planned; the rest may differ`,
      ),
      '',
    );
  const drifted = plan.changes.filter((c) => c.drift.length > 0 || c.vanished);
  if (drifted.length > 0) {
    out.push(p.bold('Note: Objects have changed outside of fleetform'), '');
    out.push('fleetform detected the following changes made outside of fleetform since the last apply:', '');
    for (const c of drifted) {
      if (c.vanished) {
        out.push(p.bold(`  # ${c.address} has been deleted`));
        continue;
      }
      out.push(p.bold(`  # ${c.address} has changed`));
      for (const d of c.drift) out.push(attributeLine(p, d, '      '));
    }
    out.push('', 'Unless you have made equivalent changes to your configuration, apply will undo them.', '');
  }
  const acting = plan.changes.filter((c) => c.action !== 'no-op');
  const problems = plan.changes.flatMap((c) => c.problems.map((pr) => ({ address: c.address, ...pr })));
  if (acting.length === 0 && problems.length === 0) {
    out.push(p.green('No changes. Your fleet matches the configuration.'));
  } else if (acting.length > 0) {
    out.push('fleetform will perform the following actions:', '');
    const holds = holdsByAddress(plan);
    const stacks = [...new Set(acting.map((c) => c.stack))];
    for (const stack of stacks) {
      if (stacks.length > 1) out.push(p.bold(`Stack ${stack}:`), '');
      for (const c of acting.filter((a) => a.stack === stack)) out.push(...renderResource(p, c, holdOfChange(holds, c)), '');
    }
  }
  const noteOnly = plan.changes.filter((c) => c.action === 'no-op' && c.notes.some((n) => n.level === 'warning'));
  for (const c of noteOnly) {
    for (const n of c.notes)
      if (n.level === 'warning') out.push(p.yellow(`Warning: ${c.address}${n.path ? `.${n.path}` : ''}: ${n.message}`));
  }
  for (const pr of problems) {
    out.push(p.red(`Error: ${pr.address}${pr.path ? `.${pr.path}` : ''}: ${pr.message}`));
    if (pr.hint) out.push(`  hint: ${pr.hint}`);
  }
  if (plan.rollouts && plan.rollouts.length > 0) out.push('', ...rolloutPlanLines(plan.rollouts));
  for (const h of waveOnlyHolds(plan)) out.push(p.yellow(`  ${h.address}: ${holdText(h)}`));
  const summary = summarize(plan.changes);
  out.push(summary.problems > 0 ? p.red(p.bold(refusedLine(summary))) : p.bold(summaryLine(summary, plan.destroy)));
  const held = holdsSummary(plan);
  if (held) out.push(p.yellow(held));
  return `${out.join('\n')}\n`;
}
