import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { InputError, errorMessage } from '../domain/errors';
import { schemaProblems } from '../domain/schema-issues';
import { checkProjectPassEnv, type CdktfSettings } from './app-environment';

/** What fleetform needs of a project to run its app: cdktf.json's settings and the output folder. */
export interface ProjectSettings {
  readonly cdktf: CdktfSettings;
  /** Absolute output folder. */
  readonly outdir: string;
}

const CDKTF_JSON_HINT = 'add cdktf.json with the command that runs the app, e.g. {"language": "typescript", "app": "npx ts-node main.ts"}';
/** The file is there: what it lacks is the key. */
const APP_HINT = 'add "app" to cdktf.json, e.g. "app": "npx ts-node main.ts"';

/**
 * The part of cdktf.json fleetform reads (`app`, `output`, `context`, `terraformModules`,
 * `fleetform.passEnv`: the project's own environment variables its app reads);
 * its other keys (language, projectId, terraformProviders...) are cdktf's and pass unread.
 */
const cdktfJsonSchema = z.looseObject({
  app: z
    .string({ error: (issue) => (issue.input === undefined ? 'is missing' : 'must be a string: the command that runs the app') })
    .trim()
    .min(1, 'is empty: it is the command that runs the app'),
  output: z.string('must be a string: the output folder').trim().min(1, 'is empty: leave it out for cdktf.out').optional(),
  context: z.record(z.string(), z.unknown(), 'must be an object of values the app reads with node.getContext').optional(),
  terraformModules: z.array(z.unknown(), 'must be an array of module sources').optional(),
  fleetform: z
    .looseObject({
      passEnv: z
        .array(
          z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be environment variable names'),
          'must be a list of the environment variables the app reads',
        )
        .optional(),
    })
    .optional(),
});

/** The first problem of cdktf.json's content, naming the key. */
function schemaProblem(issues: readonly z.core.$ZodIssue[]): string {
  const [issue] = issues;
  if (issue === undefined) return 'cdktf.json cannot be read';
  if (issue.path.length === 0) return 'cdktf.json must hold an object, e.g. {"app": "npx ts-node main.ts"}';
  if (issue.path[0] === 'app' && issue.message === 'is missing') return 'cdktf.json has no "app": the command that runs the app';
  const [problem] = schemaProblems([issue], undefined, { noun: 'key', ownMessages: true });
  return `cdktf.json: ${problem?.message ?? issue.message}`;
}

/** Reads cdktf.json of the project in `cwd`, as `cdktf synth` does; `outdirOption` overrides its `output`. */
export function readProjectSettings(cwd: string, outdirOption: string | undefined): ProjectSettings {
  const configFile = path.join(cwd, 'cdktf.json');
  if (!existsSync(configFile)) {
    throw new InputError('no cdktf.json here: it names the command that runs the app', {
      path: cwd,
      hint: `run fleetform in the project folder, or ${CDKTF_JSON_HINT}`,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(configFile, 'utf8'));
  } catch (err) {
    throw new InputError(`cdktf.json is not valid JSON: ${errorMessage(err)}`, {
      path: configFile,
      hint: 'fix the file; it names the app command in "app"',
    });
  }
  const result = cdktfJsonSchema.safeParse(parsed);
  if (!result.success) {
    const appMissing = result.error.issues.some((i) => i.path[0] === 'app');
    throw new InputError(schemaProblem(result.error.issues), {
      path: configFile,
      hint: appMissing ? APP_HINT : 'fix the key in cdktf.json',
    });
  }
  const { app, output, context = {}, terraformModules = [], fleetform } = result.data;
  const passEnv = fleetform?.passEnv ?? [];
  checkProjectPassEnv(passEnv, configFile);
  return {
    cdktf: { app, context, terraformModules, ...(passEnv.length > 0 ? { passEnv } : {}) },
    outdir: path.resolve(cwd, outdirOption ?? output ?? 'cdktf.out'),
  };
}

/** Refuses output folders whose replacement would delete the project (or more). */
export function checkOutdir(cwd: string, outdir: string): void {
  const rel = path.relative(outdir, path.resolve(cwd));
  if (rel === '' || !rel.startsWith('..')) {
    throw new InputError(`the output folder ${outdir} contains the project`, {
      hint: 'choose an output folder inside the project, e.g. cdktf.out',
    });
  }
}
