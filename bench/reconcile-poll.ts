/**
 * What looking for a new commit costs between cycles: a git source's `hasNew` over a
 * repository on this machine (its branch read from the repository's files), and the same
 * question asked through `git ls-remote` (how a remote repository is asked), each timed over
 * a run of polls: the CPU of this process and of the processes it started, per poll and per
 * minute at the default `--poll` of 1 s.
 */
import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { gitSource } from '../src/reconciler/source';
import { childrenCpuSeconds, cpuSecondsSince, r3 } from './stats';

const POLLS_PER_MINUTE = 60;

export interface PollCost {
  readonly ms_per_poll: number;
  readonly cpu_s_per_minute: number;
}

async function costOf(polls: number, poll: () => Promise<unknown>): Promise<PollCost> {
  for (let i = 0; i < 3; i++) await poll();
  const cpu = process.cpuUsage();
  const children = childrenCpuSeconds();
  for (let i = 0; i < polls; i++) await poll();
  const seconds = cpuSecondsSince(cpu) + (childrenCpuSeconds() - children);
  return { ms_per_poll: r3((seconds * 1000) / polls), cpu_s_per_minute: r3((seconds / polls) * POLLS_PER_MINUTE) };
}

/** The two ways of polling, measured on a scratch repository of one commit. */
export async function pollCosts(polls = 60): Promise<{ local_repository: PollCost; through_git: PollCost }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-bench-poll-'));
  try {
    const repo = path.join(dir, 'repo');
    const env = {
      ...process.env,
      GIT_AUTHOR_NAME: 'b',
      GIT_AUTHOR_EMAIL: 'b@example.com',
      GIT_COMMITTER_NAME: 'b',
      GIT_COMMITTER_EMAIL: 'b@example.com',
    };
    execFileSync('git', ['init', '--quiet', '--initial-branch', 'main', repo], { env });
    execFileSync('git', ['commit', '--quiet', '--allow-empty', '-m', 'one'], { cwd: repo, env });
    const source = gitSource({ repo, branch: 'main', path: '.', workdir: path.join(dir, 'checkout'), env });
    const { id } = await source.fetch();
    const lsRemote = promisify(execFile);
    return {
      local_repository: await costOf(polls, () => source.hasNew(id)),
      through_git: await costOf(polls, () => lsRemote('git', ['ls-remote', repo, 'refs/heads/main'], { env })),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
