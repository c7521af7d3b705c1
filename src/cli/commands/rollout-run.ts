/** What `fleetform rollout status|abort` do when they run, loaded then; their names, flags and help are in rollout.ts. */
import { serviceStatusSource } from '../../engine/health/service-status-source';
import { abortRollout } from '../../engine/rollout/abort';
import type { RolloutJournal } from '../../engine/rollout/journal';
import { openConnection } from '../connection';
import { rolloutJournals, rolloutPrinter } from '../rollout-output';
import { projectBackend } from '../state-backend';
import { durationFlag } from '../engine-options';
import { staleLockPolicy } from '../workspace';

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
  j.plan.waves.forEach((w, i) => {
    const machines = w.machines.map(
      (m) => `${m.name} ${byAddress.get(m.address)?.result ?? (i + 1 < j.wave ? 'unchanged' : 'not written')}`,
    );
    lines.push(`  wave ${i + 1} (${w.rule}): ${machines.join(', ')}`);
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

/** `fleetform rollout abort`: rolls a running or halted rollout back under the stack's state lock. */
export async function runRolloutAbort(opts: {
  stack: string;
  rollout?: string;
  lockTimeout: string;
  breakStaleLock?: boolean;
}): Promise<void> {
  const backend = await projectBackend(process.cwd());
  const timeoutMs = durationFlag(opts.lockTimeout, '--lock-timeout');
  const lock = await backend.lock(opts.stack, 'rollout abort', {
    timeoutMs,
    breakStale: staleLockPolicy(Boolean(opts.breakStaleLock)),
  });
  const connection = await openConnection({ cwd: process.cwd(), env: process.env });
  try {
    const { journal, machines } = await abortRollout({
      stack: opts.stack,
      ...(opts.rollout === undefined ? {} : { rollout: opts.rollout }),
      journals: rolloutJournals(backend, process.cwd()),
      backend,
      client: connection.client,
      source: await serviceStatusSource(connection.client),
      events: rolloutPrinter(out),
      concurrency: 16,
    });
    const failed = machines.filter((m) => !m.rollback?.ok);
    out(
      `Rollout ${journal.plan.policy.name}: ${machines.length - failed.length} machine(s) rolled back${failed.length > 0 ? `, ${failed.length} not` : ''}.`,
    );
    if (failed.length > 0) process.exitCode = 1;
  } finally {
    await connection.close();
    await lock.release();
  }
}
