import type { Command } from 'commander';

/** What `force-unlock` runs, loaded when it runs rather than at every command line. */
function forceUnlockRun(): typeof import('./force-unlock-run') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when it runs
  return require('./force-unlock-run') as typeof import('./force-unlock-run');
}

export function register(program: Command): void {
  program
    .command('force-unlock <lockId>')
    .description('release a state lock left by a fleetform that is no longer running')
    .option('--stack <name>', 'the locked stack (default: the stack holding that lock)')
    .action((lockId: string, opts: { stack?: string }) => forceUnlockRun().runForceUnlock(lockId, opts));
}
