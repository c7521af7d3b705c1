/**
 * Running a user's CDKTF app, by concern: cdktf.json (app-settings), the app's process
 * group (app-process), its environment (app-environment), what its run means
 * (app-result, app-failure), the synthesis into the output folder (app-synthesis) and a
 * command line's runs (app-runner). This module gathers what commands use.
 */
import { AppRunner, type SynthesizedApp } from './app-runner';
import type { RunAppResult } from './app-result';
import { startSynthesis, type RunAppOptions } from './app-synthesis';

export { AppValidationError, formatAppProblem, type AppProblem, type RunAppResult } from './app-result';
export { AppRunner, type SynthesizedApp } from './app-runner';
export { startSynthesis, validateApp, type RunAppOptions, type Synthesis } from './app-synthesis';

/** Synthesizes the app of a project once (see startSynthesis). */
export async function synthesizeApp(options: RunAppOptions): Promise<RunAppResult> {
  return startSynthesis(options).result();
}

/** Synthesizes the app of a project once and returns its stacks, or throws an AppValidationError. */
export function runApp(options: RunAppOptions): Promise<SynthesizedApp> {
  return new AppRunner().run(options);
}
