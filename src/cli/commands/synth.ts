import * as path from 'node:path';
import type { Command } from 'commander';
import { synthesizeApp } from '../run-app';
import { describeApp, printAppProblems } from './validate';

/** `fleetform synth`: runs and validates the app and writes cdktf.out only when it has no errors. */
export function register(program: Command): void {
  program
    .command('synth')
    .description('Synthesize the CDKTF app into cdktf.out (nothing is written when the fleet has errors)')
    .option('-o, --output <dir>', 'output folder (default: "output" of cdktf.json, else cdktf.out)')
    .action(async (opts: { output?: string }) => {
      const result = await synthesizeApp({ cwd: process.cwd(), ...(opts.output === undefined ? {} : { outdir: opts.output }) });
      if (!printAppProblems(result) || !result.ok) {
        process.stderr.write('nothing was written\n');
        process.exitCode = 1;
        return;
      }
      const where = path.relative(process.cwd(), result.outdir) || '.';
      process.stdout.write(`synthesized ${describeApp(result)} to ${where}\n`);
    });
}
