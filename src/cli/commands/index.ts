import type { Command } from 'commander';

/** Every sub-command, each in its own file, registered on the root program. */
const registrations: ReadonlyArray<(program: Command) => void> = [];

export function registerCommands(program: Command): void {
  for (const register of registrations) register(program);
}
