/**
 * Where a repository is, and the commit a branch of a repository on this machine points at,
 * read from the repository's own files: a loose ref (`refs/heads/<branch>`, one commit id)
 * or, once packed, its line in `packed-refs`. Git replaces both files whole (a lock file
 * renamed into place) and writes a packed ref before it removes the loose one, so a read
 * never sees half a ref. Anything else (a ref table, a symbolic ref, a worktree's `.git`
 * file, a file that does not hold a commit id) is answered "not known" and left to the
 * `git` command, which knows every form.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A repository on this machine (by its absolute path) or elsewhere (by its URL, as given). */
export type RepositoryLocation = { readonly local: true; readonly path: string } | { readonly local: false; readonly url: string };

/**
 * Where `repo` is, as git reads it: `file://` URLs and plain paths are on this machine (a
 * relative path from `cwd`); other URLs (`https://`, `ssh://`, ...) and the scp-like
 * `host:path` form are remote.
 */
export function repositoryLocation(repo: string, cwd: string): RepositoryLocation {
  if (repo.startsWith('file://')) return { local: true, path: fileURLToPath(repo) };
  if (repo.includes('://')) return { local: false, url: repo };
  const colon = repo.indexOf(':');
  const slash = repo.indexOf('/');
  if (colon > 0 && (slash < 0 || colon < slash)) return { local: false, url: repo };
  return { local: true, path: path.resolve(cwd, repo) };
}

const COMMIT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** The commit `refs/heads/<branch>` of the repository at `repo` points at; undefined when its files do not say it plainly. */
export async function readLocalBranch(repo: string, branch: string): Promise<string | undefined> {
  const gitDir = await gitDirOf(repo);
  if (!gitDir || (await exists(path.join(gitDir, 'reftable')))) return undefined;
  const ref = `refs/heads/${branch}`;
  const loose = await readText(path.join(gitDir, ...ref.split('/')));
  if (loose !== undefined) {
    const id = loose.trim();
    return COMMIT_ID.test(id) ? id : undefined;
  }
  const packed = await readText(path.join(gitDir, 'packed-refs'));
  for (const line of packed?.split('\n') ?? []) {
    const [id, name] = line.split(' ');
    if (name?.trimEnd() === ref && id !== undefined && COMMIT_ID.test(id)) return id;
  }
  return undefined;
}

/** The repository's git folder: `<repo>/.git` when it is a folder, `<repo>` itself when bare; undefined otherwise. */
async function gitDirOf(repo: string): Promise<string | undefined> {
  const dotGit = path.join(repo, '.git');
  const stat = await fs.stat(dotGit).catch(() => undefined);
  if (stat) return stat.isDirectory() ? dotGit : undefined;
  const bare = (await exists(path.join(repo, 'HEAD'))) && (await exists(path.join(repo, 'refs')));
  return bare ? repo : undefined;
}

async function exists(file: string): Promise<boolean> {
  return fs.stat(file).then(
    () => true,
    () => false,
  );
}

/** The file's text; undefined when there is no such file. */
async function readText(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw e;
  }
}
