import type { Command } from 'commander';

/** The `--target` flag of plan and apply: the addresses given, in order, each once. */
export interface TargetOptions {
  target?: string[];
}

const collect = (value: string, previous: string[]): string[] => (previous.includes(value) ? previous : [...previous, value]);

/** Adds `--target ADDRESS` (repeatable): only those resources are read and planned. */
export function addTargetOption(command: Command): Command {
  return command.option(
    '--target <address>',
    'plan only this resource (e.g. fleetform_machine.picker-1; repeatable): nothing else is read or planned, references to other resources resolve from the state',
    collect,
    [],
  );
}

/** The targets given, or undefined for a plan of everything. */
export function targetsGiven(opts: TargetOptions): readonly string[] | undefined {
  return opts.target && opts.target.length > 0 ? opts.target : undefined;
}
