import { promises as fs, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseDuration } from '../domain/duration';
import { readAppSecretMessages } from '../domain/secret-reference';
import { receiveAppSecrets } from '../engine';
import { appEnvironment, passEnvFromEnvironment } from './app-environment';
import { startAppProcess } from './app-process';
import { judgeAppRun, readChildReport, type RunAppResult } from './app-result';
import { checkOutdir, readProjectSettings, type ProjectSettings } from './app-settings';

/** Options of a synthesis or a validation of an app. */
export interface RunAppOptions {
  /** Project folder: holds `cdktf.json`. */
  readonly cwd: string;
  /** Output folder, relative to cwd. Default: `output` of cdktf.json, else `cdktf.out`. */
  readonly outdir?: string;
  /** The environment the app's is taken from (see appEnvironment). Default: this process's. */
  readonly env?: NodeJS.ProcessEnv;
  /** Variables of that environment the operator passes to the app besides those it gets anyway. Default: FLEETFORM_PASS_ENV's. */
  readonly passEnv?: readonly string[];
  /** How long the app may run before it is ended with every process it started, ms. Default: FLEETFORM_APP_TIMEOUT, else no limit. */
  readonly timeoutMs?: number;
}

/** The timeout FLEETFORM_APP_TIMEOUT gives (a duration such as 5m), if any. */
export function appTimeoutFromEnvironment(env: NodeJS.ProcessEnv): number | undefined {
  const text = env.FLEETFORM_APP_TIMEOUT;
  return text ? parseDuration(text, 'FLEETFORM_APP_TIMEOUT', { minimumMs: 1 }) : undefined;
}

/** The reporter preloaded into the app's process: compiled JavaScript beside this file. */
const REPORTER = path.join(__dirname, 'app-reporter.js');

/** An app run under way: its result once the child ends, or its abandonment. */
interface Launched {
  result(): Promise<RunAppResult>;
  /** Stops the app and removes what it wrote so far. */
  abandon(): Promise<void>;
}

/** Starts the app writing into `staging`; its result reads the stacks from there. */
function launch(settings: ProjectSettings, cwd: string, staging: string, options: RunAppOptions): Launched {
  const env = options.env ?? process.env;
  const timeoutMs = options.timeoutMs ?? appTimeoutFromEnvironment(env);
  const passEnv = options.passEnv ?? passEnvFromEnvironment(env);
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'fleetform-app-'));
  const reportFile = path.join(scratch, 'report.json');
  const appEnv = appEnvironment(env, settings.cdktf, staging, { preload: REPORTER, reportFile }, passEnv);
  const child = startAppProcess(settings.cdktf.app, cwd, appEnv, timeoutMs);
  const cleanup = () => fs.rm(scratch, { recursive: true, force: true });
  return {
    result: async () => {
      try {
        const exit = await child.exit;
        const result = await judgeAppRun(settings.cdktf.app, staging, exit, await readChildReport(reportFile));
        // The values the app handed over stay in this process's memory, for its plans and applies.
        if (result.ok) receiveAppSecrets(readAppSecretMessages(exit.channel).values);
        return result;
      } finally {
        await cleanup();
      }
    },
    abandon: async () => {
      child.stop();
      await child.exit.catch(() => undefined);
      await cleanup();
    },
  };
}

/**
 * Synthesized documents may hold secret values (module env written in code): every file of
 * the output is made readable by its owner only (0600), its folders 0700.
 */
async function ownerOnly(dir: string): Promise<void> {
  await fs.chmod(dir, 0o700);
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) await ownerOnly(full);
    else if (entry.isFile()) await fs.chmod(full, 0o600);
  }
}

/** A synthesis started, to be awaited (or abandoned) later. */
export interface Synthesis {
  /** The project folder and the output option it was started for. */
  readonly cwd: string;
  readonly outdirOption: string | undefined;
  /** Waits for the app; on success its output replaces the output folder. */
  result(): Promise<RunAppResult>;
  /** Stops the app and removes its partial output; the output folder is untouched. */
  abandon(): Promise<void>;
}

/**
 * Starts the user's app now (the command in cdktf.json `app`, with the environment
 * `cdktf synth` gives it), synchronously, so that it runs while the caller goes on
 * loading. Its result validates the app with the fleetform rules: on success the
 * synthesized app replaces the output folder; on any error nothing is written and the
 * result carries every problem, ready to print (no stack traces).
 */
export function startSynthesis(options: RunAppOptions): Synthesis {
  const cwd = path.resolve(options.cwd);
  const settings = readProjectSettings(cwd, options.outdir);
  checkOutdir(cwd, settings.outdir);
  const parent = path.dirname(settings.outdir);
  mkdirSync(parent, { recursive: true });
  const staging = mkdtempSync(path.join(parent, `.${path.basename(settings.outdir)}.staging-`));
  let launched: Launched;
  try {
    launched = launch(settings, cwd, staging, options);
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  }
  return {
    cwd,
    outdirOption: options.outdir,
    result: async () => {
      let moved = false;
      try {
        const result = await launched.result();
        if (!result.ok) return result;
        await ownerOnly(staging);
        await fs.rm(settings.outdir, { recursive: true, force: true });
        await fs.rename(staging, settings.outdir);
        moved = true;
        return { ...result, outdir: settings.outdir };
      } finally {
        if (!moved) await fs.rm(staging, { recursive: true, force: true });
      }
    },
    abandon: async () => {
      await launched.abandon();
      await fs.rm(staging, { recursive: true, force: true });
    },
  };
}

/** Runs and validates the app like a synthesis but keeps no output. */
export async function validateApp(options: RunAppOptions): Promise<RunAppResult> {
  const cwd = path.resolve(options.cwd);
  const settings = readProjectSettings(cwd, options.outdir);
  const staging = await fs.mkdtemp(path.join(os.tmpdir(), 'fleetform-validate-'));
  try {
    return await launch(settings, cwd, staging, options).result();
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
  }
}
