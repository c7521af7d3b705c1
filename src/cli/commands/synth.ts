import type { Command } from 'commander';
import { runOf } from './runs';

/** `fleetform synth`: runs and validates the app and writes cdktf.out only when it has no errors. */
export function register(program: Command): void {
  program
    .command('synth')
    .description('Synthesize the CDKTF app into cdktf.out (nothing is written when the fleet has errors)')
    .option('-o, --output <dir>', 'output folder (default: "output" of cdktf.json, else cdktf.out)')
    .action((opts: { output?: string }) => runOf('synth').runSynth(opts));
}
