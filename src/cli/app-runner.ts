import * as path from 'node:path';
import type { AppSummary } from '../constructs/app-hook';
import type { AppProblem, RunAppResult } from './app-result';
import type { RunAppOptions, Synthesis } from './app-synthesis';

/** Running an app and judging its run, loaded when a command runs one rather than at every command line. */
function appParts(): Pick<typeof import('./app-synthesis'), 'startSynthesis'> & Pick<typeof import('./app-result'), 'AppValidationError'> {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded only when it runs */
  const { startSynthesis } = require('./app-synthesis') as typeof import('./app-synthesis');
  const { AppValidationError } = require('./app-result') as typeof import('./app-result');
  /* eslint-enable @typescript-eslint/no-require-imports */
  return { startSynthesis, AppValidationError };
}

/** The output of a valid app. */
export interface SynthesizedApp {
  /** Absolute output folder (manifest.json, stacks/<name>/cdk.tf.json). */
  readonly outdir: string;
  /** Stack names, as manifest.json lists them. */
  readonly stacks: string[];
  readonly warnings: AppProblem[];
  readonly summary: AppSummary;
}

/**
 * Runs the apps of one command line. A synthesis may be started early, before the command
 * line is parsed, so that the app runs while the rest of fleetform loads; the command's
 * synthesis of the same project and output claims it, and one nobody claims is abandoned.
 */
export class AppRunner {
  private early: Synthesis | undefined;

  /**
   * Starts the app of the project in `cwd` right away. Starts nothing when the project
   * cannot be read: the command then reports why, as it would have.
   */
  startEarly(cwd: string): this {
    try {
      this.early = appParts().startSynthesis({ cwd });
    } catch {
      this.early = undefined;
    }
    return this;
  }

  /** Stops an early synthesis nobody claimed (the command failed or did not need it). */
  async abandonEarly(): Promise<void> {
    const unclaimed = this.early;
    this.early = undefined;
    await unclaimed?.abandon();
  }

  /** Synthesizes the app (see startSynthesis), by the early synthesis when it is this one. */
  async synthesize(options: RunAppOptions): Promise<RunAppResult> {
    return (this.claimEarly(options) ?? appParts().startSynthesis(options)).result();
  }

  /**
   * Synthesizes the app and returns its stacks, or throws an AppValidationError (a
   * FleetformError) listing every problem. Engine commands call this before planning.
   */
  async run(options: RunAppOptions): Promise<SynthesizedApp> {
    const result = await this.synthesize(options);
    if (!result.ok) throw new (appParts().AppValidationError)(result.errors, result.warnings);
    return { outdir: result.outdir, stacks: result.stacks, warnings: result.warnings, summary: result.summary };
  }

  private claimEarly(options: RunAppOptions): Synthesis | undefined {
    const found = this.early;
    if (
      !found ||
      options.env !== undefined ||
      options.passEnv !== undefined ||
      options.timeoutMs !== undefined ||
      found.outdirOption !== options.outdir ||
      found.cwd !== path.resolve(options.cwd)
    )
      return undefined;
    this.early = undefined;
    return found;
  }
}
