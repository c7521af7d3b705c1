/**
 * A branch of a repository on this machine is read from the repository's files, in every
 * form git leaves it (loose, packed, bare), and what those files do not say plainly is left
 * to git; a git source asks such a repository for new commits without starting git.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { readLocalBranch, repositoryLocation } from '../../src/reconciler/local-ref';
import { gitSource } from '../../src/reconciler/source';

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'fleet',
  GIT_AUTHOR_EMAIL: 'fleet@example.com',
  GIT_COMMITTER_NAME: 'fleet',
  GIT_COMMITTER_EMAIL: 'fleet@example.com',
};

const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }).trim();

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-local-ref-'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

/** A repository with one commit on `main`; returns its folder and the commit. */
function repository(name = 'repo'): { dir: string; commit: string } {
  const dir = path.join(root, name);
  fs.mkdirSync(dir);
  git(dir, 'init', '--quiet', '--initial-branch', 'main');
  fs.writeFileSync(path.join(dir, 'main.ts'), 'export {};\n');
  git(dir, 'add', '.');
  git(dir, 'commit', '--quiet', '-m', 'first');
  return { dir, commit: git(dir, 'rev-parse', 'HEAD') };
}

describe('where a repository is', () => {
  test('paths and file URLs are on this machine, a relative path from the folder given', () => {
    expect(repositoryLocation('/srv/fleet', '/home/ops')).toEqual({ local: true, path: '/srv/fleet' });
    expect(repositoryLocation('../fleet', '/home/ops/work')).toEqual({ local: true, path: '/home/ops/fleet' });
    expect(repositoryLocation(pathToFileURL('/srv/fleet.git').href, '/')).toEqual({ local: true, path: '/srv/fleet.git' });
  });

  test('URLs and the scp-like host:path form are remote', () => {
    for (const url of ['https://git.example.com/acme/fleet.git', 'ssh://git@example.com/fleet.git', 'git@github.com:acme/fleet.git'])
      expect(repositoryLocation(url, '/')).toEqual({ local: false, url });
  });
});

describe('a local branch read from its files', () => {
  test('a loose ref, then the next commit', async () => {
    const { dir, commit } = repository();
    expect(await readLocalBranch(dir, 'main')).toBe(commit);
    fs.writeFileSync(path.join(dir, 'main.ts'), 'export const x = 1;\n');
    git(dir, 'commit', '--quiet', '-am', 'second');
    const second = git(dir, 'rev-parse', 'HEAD');
    expect(second).not.toBe(commit);
    expect(await readLocalBranch(dir, 'main')).toBe(second);
  });

  test('a packed ref, and a loose ref written after packing wins over the packed one', async () => {
    const { dir, commit } = repository();
    git(dir, 'pack-refs', '--all');
    expect(fs.existsSync(path.join(dir, '.git', 'refs', 'heads', 'main'))).toBe(false);
    expect(await readLocalBranch(dir, 'main')).toBe(commit);
    git(dir, 'commit', '--quiet', '--allow-empty', '-m', 'after packing');
    expect(await readLocalBranch(dir, 'main')).toBe(git(dir, 'rev-parse', 'HEAD'));
  });

  test('a bare repository, and a branch with a slash in its name', async () => {
    const { dir, commit } = repository();
    git(dir, 'branch', 'release/v2');
    const bare = path.join(root, 'bare.git');
    git(root, 'clone', '--quiet', '--bare', dir, bare);
    expect(await readLocalBranch(bare, 'main')).toBe(commit);
    expect(await readLocalBranch(bare, 'release/v2')).toBe(commit);
  });

  test('what the files do not say plainly is not known: no branch, a symbolic ref, a ref table, a worktree, no repository', async () => {
    const { dir } = repository();
    expect(await readLocalBranch(dir, 'nope')).toBeUndefined();
    git(dir, 'symbolic-ref', 'refs/heads/alias', 'refs/heads/main');
    expect(await readLocalBranch(dir, 'alias')).toBeUndefined();
    const worktree = path.join(root, 'tree');
    git(dir, 'worktree', 'add', '--quiet', worktree, '-b', 'side');
    expect(fs.statSync(path.join(worktree, '.git')).isFile()).toBe(true);
    expect(await readLocalBranch(worktree, 'main')).toBeUndefined();
    fs.mkdirSync(path.join(dir, '.git', 'reftable'));
    expect(await readLocalBranch(dir, 'main')).toBeUndefined();
    expect(await readLocalBranch(path.join(root, 'nothing'), 'main')).toBeUndefined();
  });
});

describe('a git source of a repository on this machine', () => {
  test('sees a new commit from the files, without starting git, given a path relative to the folder it runs in', async () => {
    const { dir, commit } = repository();
    const cwd = process.cwd();
    process.chdir(root);
    try {
      const source = gitSource({ repo: 'repo', branch: 'main', path: '.', workdir: path.join(root, 'checkout'), env: GIT_ENV });
      const first = await source.fetch();
      expect(first.id).toBe(commit);
      // Started from elsewhere, git would not find `repo`: what follows reads the same repository.
      process.chdir(os.tmpdir());
      const childProcess = jest.requireActual<typeof import('node:child_process')>('node:child_process');
      const execFile = jest.spyOn(childProcess, 'execFile');
      try {
        expect(await source.hasNew(first.id)).toBe(false);
        git(dir, 'commit', '--quiet', '--allow-empty', '-m', 'second');
        expect(await source.hasNew(first.id)).toBe(true);
        expect(execFile).not.toHaveBeenCalled();
      } finally {
        execFile.mockRestore();
      }
      const next = await source.fetch();
      expect(next.id).toBe(git(dir, 'rev-parse', 'HEAD'));
      expect(next.id).not.toBe(commit);
    } finally {
      process.chdir(cwd);
    }
  });

  test('a repository whose files do not say plainly is asked through git', async () => {
    const { dir, commit } = repository();
    fs.mkdirSync(path.join(dir, '.git', 'reftable'));
    const source = gitSource({ repo: dir, branch: 'main', path: '.', workdir: path.join(root, 'checkout'), env: GIT_ENV });
    expect(await source.hasNew(commit)).toBe(false);
    expect(await source.hasNew('0'.repeat(40))).toBe(true);
  });
});
