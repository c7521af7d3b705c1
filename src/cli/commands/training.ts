import type { Command } from 'commander';
import type { TrainingLogsOptions } from './training-run';
import { runOf } from './runs';

export function register(program: Command): void {
  const training = program.command('training').description('training jobs of the project');
  training
    .command('logs <address>')
    .description("print a training job's log, following it while the job runs")
    .option('--stack <name>', 'the stack holding the job, when several do')
    .option('--no-follow', 'print what the log holds now and stop')
    .option('--interval <duration>', 'how often to read the log while following, e.g. 2s or 500ms', '2s')
    .action((address: string, opts: TrainingLogsOptions) => runOf('training').runTrainingLogs(address, opts));
}
