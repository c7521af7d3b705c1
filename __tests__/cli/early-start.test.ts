import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { alive, fileWritten } from './process-watch';
import { join } from 'node:path';
import { appCommand } from '../../src/cli/early-start';

// The compiled module, as the command runs it: the app's process preloads the compiled reporter beside it.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the compiled module itself, loaded at run time
const { AppRunner } = require('../../dist/cli/app-runner') as typeof import('../../src/cli/app-runner');

function project(app: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'fleetform-early-'));
  writeFileSync(join(dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app }));
  return dir;
}

describe('which command lines start the app early', () => {
  it.each([
    [['plan'], 'plan'],
    [['apply', '--auto-approve'], 'apply'],
    [['--stack', 'x', 'destroy'], undefined],
    [['destroy', '--auto-approve'], 'destroy'],
    [['plan', '--synth-out', 'cdktf.out'], undefined],
    [['plan', '--synth-out=cdktf.out'], undefined],
    [['plan', '--help'], undefined],
    [['status'], undefined],
    [['synth'], undefined],
    [[], undefined],
  ])('%j -> %s', (args, expected) => {
    expect(appCommand(['node', 'fleetform', ...(args as string[])])).toBe(expected);
  });
});

describe('an app started early', () => {
  it('is claimed by the synthesis of the same project, so the app runs once', async () => {
    const dir = project(`node -e "require('fs').appendFileSync('runs', 'x'); console.error('the app stops here'); process.exit(3)"`);
    try {
      const apps = new AppRunner().startEarly(dir);
      const result = await apps.synthesize({ cwd: dir });
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.errors[0]?.message).toContain('the app stops here');
      expect(readFileSync(join(dir, 'runs'), 'utf8')).toBe('x');
      expect(readdirSync(dir).filter((e) => e.includes('staging'))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is stopped, with what the shell started, and leaves nothing when nobody claims it', async () => {
    const dir = project(`node -e "require('fs').writeFileSync('pid', String(process.pid)); setInterval(() => {}, 1000)"`);
    try {
      const apps = new AppRunner().startEarly(dir);
      const pid = Number(await fileWritten(dir, 'pid'));
      expect(alive(pid)).toBe(true);
      await apps.abandonEarly();
      expect(alive(pid)).toBe(false);
      expect(readdirSync(dir).filter((e) => e.includes('staging'))).toEqual([]);
      await apps.abandonEarly();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('starts nothing for a folder without cdktf.json, leaving the error to the command', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetform-early-'));
    try {
      const apps = new AppRunner().startEarly(dir);
      await apps.abandonEarly();
      await expect(apps.synthesize({ cwd: dir })).rejects.toThrow('no cdktf.json here');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
