import type { Command } from 'commander';
import { register as configValidate } from './config-validate';
import { register as synth } from './synth';
import { register as validate } from './validate';

/** Every sub-command, each in its own file, registered on the root program. */
const registrations: ReadonlyArray<(program: Command) => void> = [configValidate, validate, synth];

export function registerCommands(program: Command): void {
  for (const register of registrations) register(program);
}
