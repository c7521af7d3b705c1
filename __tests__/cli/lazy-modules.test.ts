/**
 * Every command line loads the whole command set to parse its arguments; the heavy parts a
 * command needs only when it runs (the embedded emulator and SQLite, the reconciler's loop and
 * metrics library, the dashboard's server) are loaded then, not at every start.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/** The files a fresh node process has loaded after requiring the compiled command line. */
function loadedByCommandLine(): string[] {
  const script = `require(${JSON.stringify(path.join(ROOT, 'dist', 'cli', 'main.js'))}); process.stdout.write(JSON.stringify(Object.keys(require.cache)));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as string[];
}

test('loading the command line spares the emulator, SQLite, the reconciler loop, prom-client and the dashboard server', () => {
  const loaded = loadedByCommandLine();
  // The check itself is sound: the command set and its parser are there.
  expect(loaded.some((f) => f.endsWith(path.join('dist', 'cli', 'commands', 'plan.js')))).toBe(true);
  expect(loaded.some((f) => f.includes(`${path.sep}commander${path.sep}`))).toBe(true);
  const spared = [
    path.join('dist', 'emulator', 'index.js'),
    `${path.sep}better-sqlite3${path.sep}`,
    path.join('dist', 'reconciler', 'run.js'),
    `${path.sep}prom-client${path.sep}`,
    path.join('dist', 'dashboard', 'server.js'),
  ];
  for (const part of spared) expect(loaded.filter((f) => f.includes(part))).toEqual([]);
});
