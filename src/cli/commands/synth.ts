import type { Command } from 'commander';

/** What `synth` runs, loaded when it runs rather than at every command line. */
function synthRun(): typeof import('./synth-run') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when it runs
  return require('./synth-run') as typeof import('./synth-run');
}

/** `fleetform synth`: runs and validates the app and writes cdktf.out only when it has no errors. */
export function register(program: Command): void {
  program
    .command('synth')
    .description('Synthesize the CDKTF app into cdktf.out (nothing is written when the fleet has errors)')
    .option('-o, --output <dir>', 'output folder (default: "output" of cdktf.json, else cdktf.out)')
    .action((opts: { output?: string }) => synthRun().runSynth(opts));
}
