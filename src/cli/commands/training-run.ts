/** What `fleetform training logs` does when it runs, loaded then; its name, flags and help are in training.ts. */
import type { TrainingJobLogEntry } from '../../api/client';
import { InputError } from '../../domain/errors';
import { TRAINING_JOB_TYPES } from '../../domain/resource-attributes';
import { isTerminal, trainingStatusName } from '../../domain/training';
import { parseDuration } from '../../domain/duration';
import { openConnection } from '../connection';
import { projectBackend } from '../state-backend';

export interface TrainingLogsOptions {
  stack?: string;
  follow: boolean;
  interval: string;
}

/** The id of the training job at an address of the project's state (in any stack, or the one named). */
async function jobIdAt(address: string, stack: string | undefined): Promise<string> {
  const backend = await projectBackend(process.cwd());
  const stacks = stack ? [stack] : await backend.stacks();
  const found: string[] = [];
  for (const name of stacks) {
    const entry = (await backend.read(name)).resources[address];
    if (entry && TRAINING_JOB_TYPES.includes(entry.type) && entry.ids.id) found.push(entry.ids.id);
  }
  if (found.length === 1) return found[0] as string;
  if (found.length > 1)
    throw new InputError(`${address} is a training job of ${found.length} stacks`, { path: address, hint: 'name the stack with --stack' });
  throw new InputError(`no training job at ${address} in the state${stack ? ` of stack ${stack}` : ''}`, {
    path: address,
    hint: 'give the address of an applied TrainingJob or CustomTrainingJob, e.g. fleetform_training_job.box-detector (fleetform state list shows them)',
  });
}

function line(e: TrainingJobLogEntry): string {
  return `${e.time?.toISOString() ?? '-'} ${e.level.toUpperCase().padEnd(5)} ${e.message}\n`;
}

/** `fleetform training logs ADDRESS`: prints a training job's log, following it while the job runs unless told not to. */
export async function runTrainingLogs(address: string, opts: TrainingLogsOptions): Promise<void> {
  const intervalMs = parseDuration(opts.interval, '--interval', { minimumMs: 100 });
  const id = await jobIdAt(address, opts.stack);
  const connection = await openConnection({ cwd: process.cwd(), env: process.env });
  try {
    let printed = 0;
    for (;;) {
      // Read the status first: once it is terminal, the log read after it is complete.
      const job = await connection.client.mlTrainingClient.getTrainingJob(id);
      const entries = await connection.client.mlTrainingClient.getTrainingJobLogs(id);
      for (const e of entries.slice(printed)) process.stdout.write(line(e));
      printed = Math.max(printed, entries.length);
      if (!opts.follow || isTerminal(job.status)) {
        process.stderr.write(
          `training job ${id} is ${trainingStatusName(job.status)}${job.errorStatus?.message ? `: ${job.errorStatus.message}` : ''}\n`,
        );
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  } finally {
    await connection.close();
  }
}
