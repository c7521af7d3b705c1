/**
 * Where the project's code comes from: a folder (a change is any file's size or time
 * changing) or a branch of a git repository, checked out into a work folder with the `git`
 * command. Credentials come from the environment: git's own (credential helpers,
 * GIT_ASKPASS, SSH agent), or FLEETFORM_GIT_TOKEN, passed to git as an HTTP header through
 * its environment (never on a command line, never logged).
 */
import { execFile } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { FleetformError } from '../domain/errors';
import { readLocalBranch, repositoryLocation } from './local-ref';

export interface Revision {
  /** The project's folder at this revision. */
  readonly dir: string;
  /** A git commit, or a fingerprint of the folder's files. */
  readonly id: string;
  /** Whether it is a git commit (shown to users and in events). */
  readonly commit?: string;
  /** The checkout's root folder, for a git commit (the project's folder may be inside it). */
  readonly root?: string;
}

export interface ProjectSource {
  /** Brings the newest revision. */
  fetch(): Promise<Revision>;
  /** Whether a revision newer than `than` is there, cheaply (no checkout). */
  hasNew(than: string): Promise<boolean>;
  /** The id the newest revision has now, read without fetching (what tells a new commit while fetches fail). */
  head?(): Promise<string>;
  /** What it watches, for logs (credentials removed). */
  readonly description: string;
}

export class GitError extends FleetformError {}

/** A URL with its user and password taken out (a path is returned as it is). */
export function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return url;
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return url;
  }
}

const SKIPPED = new Set(['node_modules', '.git', '.fleetform', 'cdktf.out', 'dist']);

/** Sizes and times of every file of the folder, but for dependencies and outputs. */
async function fingerprint(dir: string): Promise<string> {
  const parts: string[] = [];
  const walk = async (at: string): Promise<void> => {
    const entries = await fs.readdir(at, { withFileTypes: true });
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (SKIPPED.has(e.name)) continue;
      const full = path.join(at, e.name);
      if (e.isDirectory()) await walk(full);
      else if (e.isFile()) {
        const s = await fs.stat(full);
        parts.push(`${path.relative(dir, full)}:${s.size}:${s.mtimeMs}`);
      }
    }
  };
  await walk(dir);
  const { createHash } = await import('node:crypto');
  return createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 16);
}

export function folderSource(dir: string): ProjectSource {
  const resolved = path.resolve(dir);
  return {
    description: resolved,
    fetch: async () => ({ dir: resolved, id: await fingerprint(resolved) }),
    head: () => fingerprint(resolved),
    hasNew: async (than) => (await fingerprint(resolved)) !== than,
  };
}

export interface GitSourceOptions {
  readonly repo: string;
  readonly branch: string;
  /** The project's folder inside the repository. */
  readonly path: string;
  /** Where the checkout is kept. */
  readonly workdir: string;
  readonly env?: NodeJS.ProcessEnv;
}

/** git's environment: no prompt, and FLEETFORM_GIT_TOKEN as an HTTP header when set. */
function gitEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env, GIT_TERMINAL_PROMPT: '0' };
  const token = env.FLEETFORM_GIT_TOKEN;
  if (token) {
    const n = Number(env.GIT_CONFIG_COUNT ?? '0') || 0;
    out.GIT_CONFIG_COUNT = String(n + 1);
    out[`GIT_CONFIG_KEY_${n}`] = 'http.extraHeader';
    out[`GIT_CONFIG_VALUE_${n}`] = `Authorization: Bearer ${token}`;
  }
  return out;
}

function git(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv, repo: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, env, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout.trim());
      // git's messages may repeat the URL: credentials are taken out of them.
      const said = stderr.split(repo).join(withoutCredentials(repo)).trim().split('\n').slice(-3).join(' ');
      reject(
        new GitError(`git ${args[0]} failed: ${said || (err as Error).message}`, {
          path: withoutCredentials(repo),
          hint: 'check --repo, --branch and the credentials in the environment (FLEETFORM_GIT_TOKEN or git credential helpers)',
        }),
      );
    });
  });
}

/**
 * How often a source is asked for a new commit when the user does not say: every second for a
 * folder or a repository on this machine (a few file reads), every 15 s for a remote one,
 * which each poll asks with `git ls-remote` (a process and a connection: about 50 ms of CPU,
 * 3 CPU-seconds a minute at one a second). A push webhook (`POST /api/refresh`) asks at once.
 */
export function defaultPollMs(repo: string | undefined): number {
  return repo === undefined || repositoryLocation(repo, process.cwd()).local ? 1000 : 15_000;
}

export function gitSource(options: GitSourceOptions): ProjectSource {
  const env = gitEnv(options.env ?? process.env);
  const { branch, workdir } = options;
  const location = repositoryLocation(options.repo, process.cwd());
  // A plain path means the same repository to every git command, whatever folder it runs in.
  const repo = location.local && !options.repo.startsWith('file://') ? location.path : options.repo;
  const ref = `refs/heads/${branch}`;
  const run = (args: readonly string[], cwd = workdir): Promise<string> => git(args, cwd, env, repo);
  let cloned = false;
  let checkedOut: string | undefined;
  const ensureClone = async (): Promise<void> => {
    if (cloned) return;
    if (!existsSync(path.join(workdir, '.git'))) {
      await fs.mkdir(path.dirname(path.resolve(workdir)), { recursive: true });
      await run(
        ['clone', '--quiet', '--no-checkout', '--branch', branch, '--single-branch', repo, path.resolve(workdir)],
        path.dirname(path.resolve(workdir)),
      );
    }
    cloned = true;
  };
  /** The branch's commit: read from the ref's file for a repository on this machine (no process started); git answers the rest ('' for none). */
  const head = async (): Promise<string> => {
    const local = location.local ? await readLocalBranch(location.path, branch).catch(() => undefined) : undefined;
    if (local !== undefined) return local;
    const line = await run(['ls-remote', repo, ref], existsSync(workdir) ? workdir : process.cwd());
    return line.split(/\s+/)[0] ?? '';
  };
  return {
    description: `${withoutCredentials(repo)} (branch ${branch}${options.path && options.path !== '.' ? `, folder ${options.path}` : ''})`,
    async fetch() {
      await ensureClone();
      await run(['fetch', '--quiet', 'origin', `+${ref}:refs/remotes/origin/${branch}`]);
      const commit = await run(['rev-parse', `refs/remotes/origin/${branch}`]);
      if (checkedOut !== commit) {
        await run(['checkout', '--quiet', '--force', '--detach', commit]);
        checkedOut = commit;
      }
      const dir = path.resolve(workdir, options.path || '.');
      if (!existsSync(dir))
        throw new GitError(`commit ${commit.slice(0, 12)} has no folder ${options.path}`, {
          path: '--path',
          hint: 'name the project folder inside the repository',
        });
      return { dir, id: commit, commit, root: path.resolve(workdir) };
    },
    async hasNew(than) {
      const sha = await head();
      return sha !== '' && sha !== than;
    },
    head,
  };
}
