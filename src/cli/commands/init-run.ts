/** What `fleetform init` does when it runs, loaded then; its name, flags and help are in init.ts. */
import { existsSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { InputError } from '../../domain/errors';
import { fleetformSpecFor, newProjectFiles, nextSteps, projectName } from '../../engine/project-code';
import { fleetformSource } from '../fleetform-source';

export interface InitOptions {
  fleetformSpec?: string;
  force?: boolean;
}

/** Refuses a folder holding anything, unless forced; makes it when missing. */
async function prepareDir(dir: string, force: boolean): Promise<void> {
  if (!existsSync(dir)) {
    await fs.mkdir(dir, { recursive: true });
    return;
  }
  const stat = await fs.stat(dir);
  if (!stat.isDirectory()) throw new InputError('this is a file, not a folder', { path: dir, hint: 'name a new or empty folder' });
  const entries = await fs.readdir(dir);
  if (entries.length > 0 && !force) {
    throw new InputError(`the folder is not empty (${entries.slice(0, 5).join(', ')}${entries.length > 5 ? ', ...' : ''})`, {
      path: dir,
      hint: 'name a new or empty folder, or pass --force to write the project files over what is there',
    });
  }
}

/** `fleetform init [DIR]`: a new CDK Terrain project managing a two-machine fleet, and what to run next. */
export async function runInit(dirArg: string, opts: InitOptions): Promise<void> {
  const cwd = process.cwd();
  const dir = path.resolve(cwd, dirArg);
  const spec = fleetformSpecFor(fleetformSource(cwd, opts.fleetformSpec), dir);
  await prepareDir(dir, opts.force ?? false);
  const files = newProjectFiles(projectName(dir), spec);
  for (const file of files) await fs.writeFile(path.join(dir, file.path), file.content);
  const relative = path.relative(cwd, dir);
  process.stdout.write(
    `Made a fleetform project in ${dir}: ${files.map((f) => f.path).join(', ')} (fleetform from ${spec}).\n\nNext:\n` +
      nextSteps(relative)
        .map((line) => `  ${line}\n`)
        .join(''),
  );
}
