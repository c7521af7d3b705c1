/** What `fleetform force-unlock` does when it runs, loaded then; its name, flags and help are in force-unlock.ts. */
import { FleetformError } from '../../domain/errors';
import { projectBackend } from '../state-backend';

/** `fleetform force-unlock LOCK_ID`: releases the lock of the stack holding it (or of the one named). */
export async function runForceUnlock(lockId: string, opts: { stack?: string }): Promise<void> {
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
}
