import type { Command } from 'commander';
import { register as configValidate } from './config-validate';

/** Every sub-command, each in its own file, registered on the root program. */
const registrations: ReadonlyArray<(program: Command) => void> = [configValidate];

export function registerCommands(program: Command): void {
  for (const register of registrations) register(program);
}
