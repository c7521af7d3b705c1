/**
 * Runs a planned rollout: for each wave, writes its machines' configs through the executor
 * (guarded as any apply), waits until each machine passes its gate, and goes on; past the
 * abort threshold it stops and, by policy, writes every changed machine back to the config
 * it had before the rollout (guarded by the revision the rollout wrote), its state entry
 * with it. The run itself is a {@link RolloutRun}.
 */
import type { RolloutOutcome } from './events';
import { RolloutRun } from './rollout-run';
import type { RunRolloutInput } from './run-types';

export { pollInterval, type RolloutStage, type RunRolloutInput, type StageWrite, type Written } from './run-types';
export { awaitWrittenBack, CREATED_BASELINE, rollBack, type WrittenBack } from './stack-stage';
export { RolloutRun } from './rollout-run';

export function runRollout(input: RunRolloutInput): Promise<RolloutOutcome> {
  return new RolloutRun(input).run();
}
