import type { Command } from 'commander';
import { FleetformError } from '../../domain/errors';
import { projectBackend } from '../state-backend';

export function register(program: Command): void {
  program
    .command('force-unlock <lockId>')
    .description('release a state lock left by a fleetform that is no longer running')
    .option('--stack <name>', 'the locked stack (default: the stack holding that lock)')
    .action(async (lockId: string, opts: { stack?: string }) => {
      const b = await projectBackend(process.cwd());
      const candidates = opts.stack ? [opts.stack] : await b.lockedStacks();
      for (const stack of candidates) {
        const holder = await b.lockHolder(stack);
        if (holder?.id === lockId) {
          await b.forceUnlock(stack, lockId);
          process.stdout.write(`Released the lock ${lockId} on stack ${stack}.\n`);
          return;
        }
      }
      throw new FleetformError(`no stack holds the lock ${lockId}`, {
        hint: 'the ID is printed by the command that found the state locked',
      });
    });
}
