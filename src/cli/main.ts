import { Command, CommanderError } from 'commander';
import { FleetformError } from '../domain/errors';
import { packageVersion } from '../constructs/package-version';
import { registerCommands } from './commands';
import { writePhaseTimings } from './phase-timings';
import { AppRunner } from './app-runner';

/** Builds the `fleetform` command; each sub-command registers itself from its own file. */
export function buildProgram(apps: AppRunner = new AppRunner()): Command {
  const program = new Command('fleetform')
    .description('Robot fleet configuration and ML training as code')
    .version(packageVersion(), '-V, --version', "print fleetform's version")
    .exitOverride()
    .showHelpAfterError();
  registerCommands(program, apps);
  return program;
}

/**
 * Runs the command line and resolves to the process exit code. Sub-commands report
 * their result by setting `process.exitCode` or throwing a FleetformError, which is
 * printed as `error: path: message` with its hint and no stack trace.
 */
export async function main(argv: readonly string[], apps: AppRunner = new AppRunner()): Promise<number> {
  const startupS = performance.now() / 1000;
  const program = buildProgram(apps);
  try {
    await program.parseAsync([...argv]);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    if (err instanceof FleetformError) {
      // An error may quote what an app printed: it passes the redactor like every text fleetform sends out.
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only on an error: a command line's start loads no engine
      const { processRedactor } = require('../engine/redactor') as typeof import('../engine/redactor');
      process.stderr.write(`error: ${processRedactor.redact(err.format())}\n`);
      return 1;
    }
    throw err;
  } finally {
    await apps.abandonEarly();
    writePhaseTimings(process.env, startupS);
  }
}
