/** What `fleetform rollout resume` does when it runs, loaded then; its name, flags and help are in rollout.ts. */
import { releaseRollout } from '../../engine';
import { durationFlag, staleLockPolicy } from '../engine-options';
import { rolloutJournals } from '../rollout-output';
import { projectBackend } from '../state-backend';

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/** `fleetform rollout resume STACK`: releases a rollout held by a pause step or its schedule's stop, under the stack's state lock. */
export async function runRolloutResume(
  stack: string,
  opts: { rollout?: string; lockTimeout: string; breakStaleLock?: boolean },
): Promise<void> {
  const backend = await projectBackend(process.cwd());
  const lock = await backend.lock(stack, 'rollout resume', {
    timeoutMs: durationFlag(opts.lockTimeout, '--lock-timeout'),
    breakStale: staleLockPolicy(Boolean(opts.breakStaleLock)),
  });
  try {
    const journal = await releaseRollout({
      stack,
      ...(opts.rollout === undefined ? {} : { rollout: opts.rollout }),
      journals: rolloutJournals(backend, process.cwd()),
    });
    out(
      `Rollout ${journal.plan.policy.name} (stack ${stack}) released at wave ${journal.wave} of ${journal.plan.waves.length}: \`fleetform apply\` goes on from there.`,
    );
  } finally {
    await lock.release();
  }
}
