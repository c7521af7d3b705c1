import type { Command } from 'commander';
import { runOf } from './runs';

export function register(program: Command): void {
  program
    .command('force-unlock <lockId>')
    .description('release a state lock left by a fleetform that is no longer running')
    .option('--stack <name>', 'the locked stack (default: the stack holding that lock)')
    .action((lockId: string, opts: { stack?: string }) => runOf('force-unlock').runForceUnlock(lockId, opts));
}
