import { spawn } from 'node:child_process';
import { existsSync, promises as fs, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AppSummary } from '../constructs/app-hook';
import type { FleetIssue } from '../constructs/fleet-issue';
import { formatFleetIssue } from '../constructs/fleet-issue';
import { FleetformError, InputError } from '../domain/errors';
import type { AppCrash, ChildReport } from './app-report-file';
import { appEnvironment, type CdktfSettings } from './app-environment';
import { invalidJsonProblems } from './synth-output-check';

/** Options of {@link runApp}, {@link synthesizeApp} and {@link validateApp}. */
export interface RunAppOptions {
  /** Project folder: holds `cdktf.json`. */
  readonly cwd: string;
  /** Output folder, relative to cwd. Default: `output` of cdktf.json, else `cdktf.out`. */
  readonly outdir?: string;
  /** Environment of the app process. Default: this process's. */
  readonly env?: NodeJS.ProcessEnv;
}

/** A problem of an app: a construct's (constructPath set) or the app's as a whole (constructPath empty). */
export type AppProblem = FleetIssue;

/** What running an app produced: its stacks, or every problem that stopped it. */
export type RunAppResult =
  | {
      readonly ok: true;
      /** Absolute output folder (for validateApp: the temporary one, already removed). */
      readonly outdir: string;
      /** Stack names, as manifest.json lists them. */
      readonly stacks: string[];
      readonly warnings: AppProblem[];
      readonly summary: AppSummary;
    }
  | { readonly ok: false; readonly errors: AppProblem[]; readonly warnings: AppProblem[] };

interface ProjectSettings {
  readonly cdktf: CdktfSettings;
  readonly outdir: string;
}

const CDKTF_JSON_HINT = 'add cdktf.json with the command that runs the app, e.g. {"language": "typescript", "app": "npx ts-node main.ts"}';

/** Reads cdktf.json (`app`, `output`, `context`, `terraformModules`), as `cdktf synth` does. */
function projectSettings(cwd: string, outdirOption: string | undefined): ProjectSettings {
  const configFile = path.join(cwd, 'cdktf.json');
  if (!existsSync(configFile)) {
    throw new InputError('no cdktf.json here: it names the command that runs the app', { path: cwd, hint: `run fleetform in the project folder, or ${CDKTF_JSON_HINT}` });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(configFile, 'utf8'));
  } catch (err) {
    throw new InputError(`cdktf.json is not valid JSON: ${err instanceof Error ? err.message : String(err)}`, {
      path: configFile,
      hint: 'fix the file; it names the app command in "app"',
    });
  }
  const settings = (parsed !== null && typeof parsed === 'object' ? parsed : {}) as Record<string, unknown>;
  const app = typeof settings.app === 'string' ? settings.app.trim() : '';
  if (app === '') throw new InputError('cdktf.json has no "app": the command that runs the app', { path: configFile, hint: 'add "app" to cdktf.json, e.g. "app": "npx ts-node main.ts"' });
  const output = typeof settings.output === 'string' && settings.output.trim() !== '' ? settings.output.trim() : undefined;
  const context = settings.context !== null && typeof settings.context === 'object' && !Array.isArray(settings.context) ? (settings.context as Record<string, unknown>) : {};
  const terraformModules = Array.isArray(settings.terraformModules) ? settings.terraformModules : [];
  return { cdktf: { app, context, terraformModules }, outdir: path.resolve(cwd, outdirOption ?? output ?? 'cdktf.out') };
}

/** Refuses output folders whose replacement would delete the project (or more). */
function checkOutdir(cwd: string, outdir: string): void {
  const rel = path.relative(outdir, path.resolve(cwd));
  if (rel === '' || !rel.startsWith('..')) {
    throw new InputError(`the output folder ${outdir} contains the project`, {
      hint: 'choose an output folder inside the project, e.g. cdktf.out',
    });
  }
}

interface ChildOutcome {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly output: string;
}

const OUTPUT_LIMIT = 64 * 1024;

/** The reporter preloaded into the app's process: compiled JavaScript beside this file. */
const REPORTER = path.join(__dirname, 'app-reporter.js');

/** Processes started by `pid`, their children and so on (read from /proc; none where there is no /proc). */
function descendants(pid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const entry of entries) {
    try {
      // The parent's pid is the second field after the command name in parentheses.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // Ended while being read.
    }
  }
  const found: number[] = [];
  const visit = (p: number): void => {
    for (const c of children.get(p) ?? []) {
      visit(c);
      found.push(c);
    }
  };
  visit(pid);
  return found;
}

/** Runs the app command in a shell, as `cdktf synth` does, keeping the tail of its output. */
function runChild(command: string, cwd: string, env: NodeJS.ProcessEnv): { outcome: Promise<ChildOutcome>; kill(): void } {
  const child = spawn(command, { cwd, shell: true, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_LIMIT);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const outcome = new Promise<ChildOutcome>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, output }));
  });
  return {
    outcome,
    kill: () => {
      if (child.pid === undefined || child.exitCode !== null) return;
      // The shell does not pass a kill on to the app it started: stop the app first.
      for (const pid of [...descendants(child.pid), child.pid]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
    },
  };
}

function appProblem(message: string, hint?: string, code = 'app-failed'): AppProblem {
  return { severity: 'error', code, constructPath: '', field: '', message, ...(hint === undefined ? {} : { hint }) };
}

function crashProblem(crash: AppCrash): AppProblem {
  const where = [crash.location, crash.path].filter((x): x is string => x !== undefined).join(': ');
  // fleetform's own errors (they carry a path) speak for themselves; others are named, e.g. `TypeError: ...`.
  const named = crash.name !== 'Error' && crash.name !== 'FleetformError' && crash.path === undefined;
  const message = `${where ? `${where}: ` : ''}${named ? `${crash.name}: ` : ''}${crash.message}`;
  return appProblem(message, crash.hint);
}

function lastLines(text: string, count: number): string {
  const lines = text.trimEnd().split('\n');
  return lines.slice(-count).join('\n');
}

async function readChildReport(file: string): Promise<ChildReport | undefined> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as ChildReport;
  } catch {
    return undefined;
  }
}

async function stackNames(outdir: string): Promise<string[] | undefined> {
  try {
    const manifest = JSON.parse(await fs.readFile(path.join(outdir, 'manifest.json'), 'utf8')) as { stacks?: unknown };
    return manifest.stacks !== null && typeof manifest.stacks === 'object' ? Object.keys(manifest.stacks) : undefined;
  } catch {
    return undefined;
  }
}

/** An app run under way: its result once the child ends, or its abandonment. */
interface Launched {
  result(): Promise<RunAppResult>;
  /** Stops the child and removes what it wrote so far. */
  abandon(): Promise<void>;
}

/** Starts the app writing into `staging`; its result reads the stacks from there. */
function launch(settings: ProjectSettings, cwd: string, staging: string, env: NodeJS.ProcessEnv): Launched {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'fleetform-app-'));
  const reportFile = path.join(scratch, 'report.json');
  const child = runChild(settings.cdktf.app, cwd, appEnvironment(env, settings.cdktf, staging, { preload: REPORTER, reportFile }));
  const cleanup = () => fs.rm(scratch, { recursive: true, force: true });
  return {
    result: async () => {
      try {
        return await judge(settings, staging, await child.outcome, reportFile);
      } finally {
        await cleanup();
      }
    },
    abandon: async () => {
      child.kill();
      await child.outcome.catch(() => undefined);
      await cleanup();
    },
  };
}

/** The result of a finished app run: every problem it reported, or its stacks. */
async function judge(settings: ProjectSettings, staging: string, outcome: ChildOutcome, reportFile: string): Promise<RunAppResult> {
  const report = await readChildReport(reportFile);
  const issues = (report?.apps ?? []).flatMap((a) => a.issues);
  const errors = issues.filter((i) => i.severity === 'error');
  const warnings = issues.filter((i) => i.severity === 'warning');
  if (errors.length > 0) return { ok: false, errors, warnings };
  if (report?.crash) return { ok: false, errors: [crashProblem(report.crash)], warnings };
  if (outcome.code !== 0) {
    const how = outcome.signal ? `was stopped by ${outcome.signal}` : `exited with code ${outcome.code}`;
    const tail = lastLines(outcome.output, 20);
    return { ok: false, errors: [appProblem(`the app (${settings.cdktf.app}) ${how}${tail ? `:\n${tail}` : ''}`)], warnings };
  }
  const invalid = await invalidJsonProblems(staging);
  if (invalid.length > 0) return { ok: false, errors: invalid, warnings };
  const stacks = await stackNames(staging);
  if (stacks === undefined) {
    return {
      ok: false,
      errors: [
        appProblem(
          `the app (${settings.cdktf.app}) synthesized nothing`,
          'call app.synth() at the end of the app, and create the App without an outdir (fleetform sets CDKTF_OUTDIR)',
          'app-no-output',
        ),
      ],
      warnings,
    };
  }
  const summary = (report?.apps ?? []).reduce<AppSummary>(
    (sum, a) => ({
      stacks: sum.stacks + a.summary.stacks,
      machines: sum.machines + a.summary.machines,
      datasets: sum.datasets + a.summary.datasets,
      trainingJobs: sum.trainingJobs + a.summary.trainingJobs,
    }),
    { stacks: 0, machines: 0, datasets: 0, trainingJobs: 0 },
  );
  return { ok: true, outdir: staging, stacks, warnings, summary: { ...summary, stacks: stacks.length } };
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
 * Starts the user's app now (see {@link synthesizeApp}), synchronously, so that it runs
 * while the caller goes on loading; nothing is replaced before `result`.
 */
export function startSynthesis(options: RunAppOptions): Synthesis {
  const cwd = path.resolve(options.cwd);
  const settings = projectSettings(cwd, options.outdir);
  checkOutdir(cwd, settings.outdir);
  const parent = path.dirname(settings.outdir);
  mkdirSync(parent, { recursive: true });
  const staging = mkdtempSync(path.join(parent, `.${path.basename(settings.outdir)}.staging-`));
  let launched: Launched;
  try {
    launched = launch(settings, cwd, staging, options.env ?? process.env);
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

/** A synthesis started before the command line was parsed, waiting to be claimed. */
let early: Synthesis | undefined;

/**
 * Starts the app of the project in `cwd` right away, while the rest of the command loads;
 * {@link synthesizeApp} for the same project and output claims it. Starts nothing when the
 * project cannot be read: the command then reports why, as it would have.
 */
export function startSynthesisEarly(cwd: string): void {
  try {
    early = startSynthesis({ cwd });
  } catch {
    early = undefined;
  }
}

/** Stops an early synthesis nobody claimed (the command failed or did not need it). */
export async function abandonEarlySynthesis(): Promise<void> {
  const unclaimed = early;
  early = undefined;
  await unclaimed?.abandon();
}

function claimEarly(options: RunAppOptions): Synthesis | undefined {
  const found = early;
  if (!found || options.env !== undefined || found.outdirOption !== options.outdir || found.cwd !== path.resolve(options.cwd)) return undefined;
  early = undefined;
  return found;
}

/**
 * Runs the user's CDKTF app (the command in cdktf.json `app`, with the environment
 * `cdktf synth` gives it) in a child process and validates it with the fleetform rules. On success the synthesized
 * app replaces the output folder and the result lists its stacks; on any error nothing
 * is written and the result carries every problem, ready to print (no stack traces).
 */
export async function synthesizeApp(options: RunAppOptions): Promise<RunAppResult> {
  const synthesis = claimEarly(options) ?? startSynthesis(options);
  return synthesis.result();
}

/** Runs and validates the app like {@link synthesizeApp} but keeps no output. */
export async function validateApp(options: RunAppOptions): Promise<RunAppResult> {
  const cwd = path.resolve(options.cwd);
  const settings = projectSettings(cwd, options.outdir);
  const staging = await fs.mkdtemp(path.join(os.tmpdir(), 'fleetform-validate-'));
  try {
    return await launch(settings, cwd, staging, options.env ?? process.env).result();
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
  }
}

/** `error: path: field: message` (and hint) lines of a problem, for terminals. */
export function formatAppProblem(problem: AppProblem): string {
  return `${problem.severity}: ${describeProblem(problem)}`;
}

function describeProblem(problem: AppProblem): string {
  if (problem.constructPath) return formatFleetIssue(problem);
  return problem.hint ? `${problem.message}\n  hint: ${problem.hint}` : problem.message;
}

/** A failed run as one error: every problem in its message, printed by the CLI without a stack trace. */
export class AppValidationError extends FleetformError {
  readonly errors: readonly AppProblem[];
  readonly warnings: readonly AppProblem[];
  constructor(errors: readonly AppProblem[], warnings: readonly AppProblem[] = []) {
    const single = errors.length === 1 ? errors[0] : undefined;
    super(
      single && !single.constructPath
        ? single.message
        : `the app has ${errors.length} error${errors.length === 1 ? '' : 's'}:\n${errors
            .map((e) => `  ${describeProblem(e).replace(/\n/g, '\n  ')}`)
            .join('\n')}`,
      single && !single.constructPath && single.hint !== undefined ? { hint: single.hint } : {},
    );
    this.errors = errors;
    this.warnings = warnings;
  }
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
 * Synthesizes the app like {@link synthesizeApp} and returns `{ outdir, stacks }`, or
 * throws an AppValidationError (a FleetformError) listing every problem. Engine commands
 * call this before planning.
 */
export async function runApp(options: RunAppOptions): Promise<SynthesizedApp> {
  const result = await synthesizeApp(options);
  if (!result.ok) throw new AppValidationError(result.errors, result.warnings);
  return { outdir: result.outdir, stacks: result.stacks, warnings: result.warnings, summary: result.summary };
}
