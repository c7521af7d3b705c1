/** What `fleetform config validate` does when it runs, loaded then; its name, flags and help are in config-validate.ts. */
import { readFile } from 'node:fs/promises';
import {
  CONFIG_SECTION_ENTRY,
  CONFIG_SECTIONS,
  formatIssue,
  InputError,
  validateMachineConfig,
  type Issue,
  type MachineConfig,
  type ValidationResult,
} from '../../domain';
import { certaintyLabel, isCertainFailure } from '../../domain/certainty';
import { errorMessage } from '../../domain/errors';

/** Line and column (1-based) of a character offset in text. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

/** Reads and parses a JSON file; a missing file or malformed JSON is an InputError naming the file. */
export async function readJsonFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'file not found'
        : code === 'EISDIR'
          ? 'is a directory, not a file'
          : code === 'EACCES'
            ? 'permission denied'
            : `cannot read file (${code ?? String(err)})`;
    throw new InputError(why, { path: file, hint: 'pass the path of a machine config JSON file' });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    const detail = errorMessage(err);
    const pos = /position (\d+)/.exec(detail);
    const where = pos ? (({ line, column }) => ` at line ${line}, column ${column}`)(lineAndColumn(text, Number(pos[1]))) : '';
    throw new InputError(`malformed JSON${where}: ${detail}`, {
      path: file,
      hint: 'fix the JSON syntax (a machine config is one JSON object, as copied from the web app)',
    });
  }
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function listLength(config: unknown, key: keyof MachineConfig): number {
  const v = (config as Record<string, unknown>)[key];
  return Array.isArray(v) ? v.length : 0;
}

function printIssue(severity: string, issue: Issue): void {
  process.stderr.write(`${severity}: ${formatIssue(issue)}\n`);
}

/** The findings as this command judges them: a certain failure of an item is an error, unless only warnings are asked for. */
function judged(config: unknown, opts: ConfigValidateOptions): ValidationResult {
  const result = validateMachineConfig(config, { allowUnpinnedModules: opts.allowUnpinnedModules === true });
  if (opts.warnOnly === true) return { errors: result.errors, warnings: result.warnings };
  return {
    errors: [...result.errors, ...result.warnings.filter(isCertainFailure)],
    warnings: result.warnings.filter((w) => !isCertainFailure(w)),
  };
}

/** The flags of `config validate`. */
export interface ConfigValidateOptions {
  readonly allowUnpinnedModules?: boolean;
  /** Report certain failures of items as warnings, and exit 0 unless the whole config is refused. */
  readonly warnOnly?: boolean;
}

/** `fleetform config validate FILE.json`: checks a raw machine config as the service stores it. */
export async function runConfigValidate(file: string, opts: ConfigValidateOptions): Promise<void> {
  const config = await readJsonFile(file);
  const result = judged(config, opts);
  for (const w of result.warnings) printIssue(certaintyLabel(w), w);
  if (result.errors.length > 0) {
    for (const e of result.errors) printIssue(isCertainFailure(e) ? 'error (certain failure)' : 'error', e);
    process.stderr.write(
      `${file}: invalid machine config: ${plural(result.errors.length, 'error')}, ${plural(result.warnings.length, 'warning')}\n`,
    );
    process.exitCode = 1;
    return;
  }
  const counts = CONFIG_SECTIONS.map((section) => plural(listLength(config, section), CONFIG_SECTION_ENTRY[section])).join(', ');
  process.stdout.write(`${file}: valid machine config (${counts}; ${plural(result.warnings.length, 'warning')})\n`);
}
