/** What `fleetform rollout abort` does when it runs, loaded then; its name, flags and help are in rollout.ts. */
import { serviceStatusSource } from '../../engine/readings';
import { abortRollout } from '../../engine';
import { openConnection } from '../connection';
import { durationFlag, staleLockPolicy } from '../engine-options';
import { rolloutJournals, rolloutPrinter } from '../rollout-output';
import { projectBackend } from '../state-backend';

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

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
