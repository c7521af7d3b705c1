/** What `fleetform rollout status` does when it runs, loaded then; its name, flags and help are in rollout.ts. */
import { holdLines, lateJoinerMark, type RolloutJournal, wavePacingText } from '../../engine';
import { rolloutJournals } from '../rollout-output';
import { measurementLines } from '../rollout-analysis-lines';
import { projectBackend } from '../state-backend';

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/** Where a journaled rollout stands: its status and wave, and each machine's result. */
function statusLines(j: RolloutJournal): string[] {
  const byAddress = new Map(j.machines.map((m) => [m.address, m]));
  const lines = [
    `Rollout ${j.plan.policy.name} (stack ${j.stack}): ${j.status}, wave ${j.wave} of ${j.plan.waves.length}; started ${j.started_at}, last update ${j.updated_at}${j.reason ? `; ${j.reason}` : ''}`,
  ];
  const f = j.plan.fragment;
  if (f)
    lines.push(
      `  fragment ${f.name}: revision ${f.from_revision ?? '?'} -> ${f.to_revision ?? '(not saved yet)'}${f.tags.length > 0 ? `; tag(s) ${f.tags.map((t) => t.tag).join(', ')} move after the last wave` : ''}`,
    );
  lines.push(...holdLines(j));
  j.plan.waves.forEach((w, i) => {
    const machines = w.machines.map(
      (m) =>
        `${m.name} ${byAddress.get(m.address)?.result ?? (i + 1 < j.wave ? 'unchanged' : 'not written')}${lateJoinerMark(j, m.address)}`,
    );
    lines.push(`  wave ${i + 1} (${w.rule})${wavePacingText(j, i)}: ${machines.join(', ')}`);
    lines.push(...measurementLines(j, i + 1));
  });
  return lines;
}

async function stacksOf(opts: { stack?: string[] }): Promise<string[]> {
  if (opts.stack && opts.stack.length > 0) return opts.stack;
  return (await projectBackend(process.cwd())).stacks();
}

/** `fleetform rollout status`: each stack's last rollout, as text or JSON. */
export async function runRolloutStatus(opts: { stack?: string[]; json?: boolean }): Promise<void> {
  const journals = rolloutJournals(await projectBackend(process.cwd()), process.cwd());
  const found: RolloutJournal[] = [];
  for (const stack of await stacksOf(opts)) found.push(...(await journals.list(stack)));
  if (opts.json) {
    out(JSON.stringify(found, null, 2));
    return;
  }
  if (found.length === 0) out('No rollout has run in this project.');
  for (const j of found) for (const line of statusLines(j)) out(line);
}
