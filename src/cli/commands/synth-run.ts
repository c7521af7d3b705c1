/** What `fleetform synth` does when it runs, loaded then; its name, flags and help are in synth.ts. */
import * as path from 'node:path';
import { synthesizeApp } from '../run-app';
import { describeApp, printAppProblems } from './validate-run';

/** `fleetform synth`: runs and validates the app and writes cdktf.out only when it has no errors. */
export async function runSynth(opts: { output?: string }): Promise<void> {
  const result = await synthesizeApp({ cwd: process.cwd(), ...(opts.output === undefined ? {} : { outdir: opts.output }) });
  if (!printAppProblems(result) || !result.ok) {
    process.stderr.write('nothing was written\n');
    process.exitCode = 1;
    return;
  }
  const where = path.relative(process.cwd(), result.outdir) || '.';
  process.stdout.write(`synthesized ${describeApp(result)} to ${where}\n`);
}
