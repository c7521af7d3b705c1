/**
 * What an app wrote must be JSON the engine and Terraform can read: manifest.json and every
 * stack document it names. A run whose output does not parse is an app error, so synth
 * writes nothing, validate fails, and plan stops before any call, naming the file and the
 * place where the JSON breaks.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { FleetIssue } from '../constructs/fleet-issue';
import { isObject } from '../domain/json-value';
import { errorMessage } from '../domain/errors';

function problem(file: string, message: string): FleetIssue {
  return {
    severity: 'error',
    code: 'app-invalid-json',
    constructPath: '',
    field: '',
    message: `the app wrote ${file}, which is not valid JSON: ${message}`,
    hint: 'the app (or something it runs) writes this file itself or after app.synth(): let cdktf write the output alone',
  };
}

/** Parses `file`; a problem naming it (relative to `outdir`) when it does not parse; undefined when it is missing (the caller's concern). */
async function parse(outdir: string, file: string): Promise<{ value: unknown } | { problem: FleetIssue } | undefined> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (err) {
    return { problem: problem(path.relative(outdir, file), errorMessage(err)) };
  }
}

/** Problems of a synthesized output folder: manifest.json and each stack document it lists that do not parse. */
export async function invalidJsonProblems(outdir: string): Promise<FleetIssue[]> {
  const manifest = await parse(outdir, path.join(outdir, 'manifest.json'));
  if (manifest === undefined) return [];
  if ('problem' in manifest) return [manifest.problem];
  const stacks = isObject(manifest.value) && isObject(manifest.value.stacks) ? manifest.value.stacks : {};
  const problems: FleetIssue[] = [];
  for (const [name, entry] of Object.entries(stacks)) {
    const rel =
      isObject(entry) && typeof entry.synthesizedStackPath === 'string'
        ? entry.synthesizedStackPath
        : path.join('stacks', name, 'cdk.tf.json');
    const stack = await parse(outdir, path.join(outdir, rel));
    if (stack !== undefined && 'problem' in stack) problems.push(stack.problem);
  }
  return problems;
}
