/**
 * What the command line does before loading the rest of fleetform: a command that runs the
 * user's app (plan, apply, destroy without --synth-out) starts it at once, so the app runs
 * while the engine, the client and the emulator load. The command claims it when it gets
 * there; a command that ends without doing so stops it.
 */
import { AppRunner } from './app-runner';

const RUNS_APP = new Set(['plan', 'apply', 'destroy']);
const NEEDS_NO_APP = new Set(['--synth-out', '-h', '--help']);

/** The sub-command of `argv` (node, script, args...) when it will run the app first. */
export function appCommand(argv: readonly string[]): string | undefined {
  const args = argv.slice(2);
  const command = args.find((a) => !a.startsWith('-'));
  if (command === undefined || !RUNS_APP.has(command)) return undefined;
  if (args.some((a) => NEEDS_NO_APP.has(a.split('=')[0] as string))) return undefined;
  return command;
}

/** The runner of the command line's apps: it has started the app of the project in `cwd` when the command line will need it. */
export function startEarly(argv: readonly string[], cwd: string): AppRunner {
  const runner = new AppRunner();
  return appCommand(argv) !== undefined ? runner.startEarly(cwd) : runner;
}
