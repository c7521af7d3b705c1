/** What `fleetform validate` does when it runs, loaded then; its name, flags and help are in validate.ts. */
import { describeResources } from '../../constructs/app-hook';
import { processRedactor } from '../../engine/redactor';
import { formatAppProblem, validateApp, type AppProblem, type RunAppResult } from '../run-app';

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Prints warnings, then errors with a count line (each through the redactor: a problem may quote what the app printed); true when there were no errors. */
export function printAppProblems(result: RunAppResult): boolean {
  const write = (p: AppProblem): void => {
    process.stderr.write(`${processRedactor.redact(formatAppProblem(p))}\n`);
  };
  result.warnings.forEach(write);
  if (result.ok) return true;
  result.errors.forEach(write);
  process.stderr.write(`${plural(result.errors.length, 'error')}, ${plural(result.warnings.length, 'warning')}\n`);
  return false;
}

/** `2 stacks (warehouse, lab), 5 machines, 1 dataset, 1 training job`: the stacks, and the resources counted by type. */
export function describeApp(result: Extract<RunAppResult, { ok: true }>): string {
  const resources = describeResources(result.summary);
  return [
    `${plural(result.stacks.length, 'stack')} (${result.stacks.join(', ') || 'none'})`,
    ...(resources.length > 0 ? resources : ['no resources']),
  ].join(', ');
}

/** `fleetform validate`: runs the app and reports every problem; exit 1 on any error. */
export async function runValidate(): Promise<void> {
  const result = await validateApp({ cwd: process.cwd() });
  if (!printAppProblems(result) || !result.ok) {
    process.exitCode = 1;
    return;
  }
  process.stdout.write(`valid: ${describeApp(result)}; ${plural(result.warnings.length, 'warning')}\n`);
}
