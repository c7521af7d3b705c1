import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { addSummaries, type AppSummary } from '../constructs/app-hook';
import { formatFleetIssue, type FleetIssue } from '../constructs/fleet-issue';
import { formatGoDuration } from '../domain/duration';
import { FleetformError } from '../domain/errors';
import { knownMistakeHint, stderrExcerpt, type InstallSpec } from './app-failure';
import type { AppExit } from './app-process';
import type { AppCrash, ChildReport } from './app-report-file';
import { runningFleetformSpec } from './fleetform-source';
import { invalidJsonProblems } from './synth-output-check';

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

/** fleetform installs by the spec of the one running (read only when the hint names it), any other package by its name. */
const installSpec: InstallSpec = (pkg) => (pkg === 'fleetform' ? runningFleetformSpec() : pkg);

function appProblem(message: string, hint?: string, code = 'app-failed'): AppProblem {
  return { severity: 'error', code, constructPath: '', field: '', message, ...(hint === undefined ? {} : { hint }) };
}

function crashProblem(crash: AppCrash, stderr: string): AppProblem {
  const where = [crash.location, crash.path].filter((x): x is string => x !== undefined).join(': ');
  // fleetform's own errors (they carry a path) speak for themselves; others are named, e.g. `TypeError: ...`.
  const named = crash.name !== 'Error' && crash.name !== 'FleetformError' && crash.path === undefined;
  const message = `${where ? `${where}: ` : ''}${named ? `${crash.name}: ` : ''}${crash.message}`;
  return appProblem(message, crash.hint ?? knownMistakeHint(`${crash.message}\n${stderr}`, undefined, installSpec));
}

/** An app that ended unsuccessfully without an uncaught error: its exit status and its own words on stderr. */
function exitProblem(app: string, exit: AppExit): AppProblem {
  const how = exit.signal ? `was stopped by ${exit.signal}` : `exited with code ${exit.code}`;
  const excerpt = stderrExcerpt(exit.stderr);
  const message = excerpt
    ? `the app (${app}) ${how}; it wrote to stderr:\n${excerpt}`
    : `the app (${app}) ${how} and wrote nothing to stderr`;
  return appProblem(message, knownMistakeHint(exit.stderr, exit.code, installSpec));
}

/** An app ended at its timeout, with every process it started. */
function timeoutProblem(app: string, exit: AppExit): AppProblem {
  const excerpt = stderrExcerpt(exit.stderr);
  return appProblem(
    `the app (${app}) ran longer than its timeout of ${formatGoDuration(exit.timedOutMs ?? 0)} and was ended with every process it started${excerpt ? `; it wrote to stderr:\n${excerpt}` : ''}`,
    'make the app end sooner (a loop that never ends? a call that waits forever?), or give it longer with --app-timeout or FLEETFORM_APP_TIMEOUT',
    'app-timeout',
  );
}

function checkFailureProblem(failure: AppCrash): AppProblem {
  return appProblem(
    `fleetform could not check the app: ${failure.name}: ${failure.message}`,
    'this is a fault of fleetform, not of the app: please report it',
    'check-failed',
  );
}

/** The report the app's process wrote at exit, if it wrote one. */
export async function readChildReport(file: string): Promise<ChildReport | undefined> {
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

/**
 * The result of a finished app run, in order of precedence: a run ended at its timeout, the problems the checks found
 * (they explain a synth that failed on them), the app's uncaught error, the app's own
 * unsuccessful exit, a failure of the checks themselves, output that is not JSON, an app
 * that synthesized nothing;
 * else its stacks.
 */
export async function judgeAppRun(app: string, outdir: string, exit: AppExit, report: ChildReport | undefined): Promise<RunAppResult> {
  const issues = (report?.apps ?? []).flatMap((a) => a.issues);
  const errors = issues.filter((i) => i.severity === 'error');
  const warnings = issues.filter((i) => i.severity === 'warning');
  const failed = (problem: AppProblem): RunAppResult => ({ ok: false, errors: [problem], warnings });
  if (exit.timedOutMs !== undefined) return failed(timeoutProblem(app, exit));
  if (errors.length > 0) return { ok: false, errors, warnings };
  if (report?.crash) return failed(crashProblem(report.crash, exit.stderr));
  if (exit.code !== 0) return failed(exitProblem(app, exit));
  if (report?.checkFailure) return failed(checkFailureProblem(report.checkFailure));
  const invalid = await invalidJsonProblems(outdir);
  if (invalid.length > 0) return { ok: false, errors: invalid, warnings };
  const stacks = await stackNames(outdir);
  if (stacks === undefined) {
    return failed(
      appProblem(
        `the app (${app}) synthesized nothing`,
        'call app.synth() at the end of the app, and create the App without an outdir (fleetform sets CDKTF_OUTDIR)',
        'app-no-output',
      ),
    );
  }
  const summary = (report?.apps ?? []).map((a) => a.summary).reduce(addSummaries, { stacks: 0, resources: {} });
  return { ok: true, outdir, stacks, warnings, summary: { ...summary, stacks: stacks.length } };
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
