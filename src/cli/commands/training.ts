import type { Command } from 'commander';
import type { TrainingLogsOptions } from './training-run';

/** What `training logs` runs, loaded when it runs rather than at every command line. */
function trainingRun(): typeof import('./training-run') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when it runs
  return require('./training-run') as typeof import('./training-run');
}

export function register(program: Command): void {
  const training = program.command('training').description('training jobs of the project');
  training
    .command('logs <address>')
    .description("print a training job's log, following it while the job runs")
    .option('--stack <name>', 'the stack holding the job, when several do')
    .option('--no-follow', 'print what the log holds now and stop')
    .option('--interval <duration>', 'how often to read the log while following, e.g. 2s or 500ms', '2s')
    .action((address: string, opts: TrainingLogsOptions) => trainingRun().runTrainingLogs(address, opts));
}
