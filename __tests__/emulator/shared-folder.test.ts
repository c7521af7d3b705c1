/** Emulators started at once on one data folder (one per stack under `cdktf deploy`) share one seeded organization. */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { DATABASE_FILE } from '../../src/emulator';
import { scratchDirs } from './fixture';

const newDir = scratchDirs();
const EMULATOR = path.resolve(__dirname, '../../src/emulator');

/** Starts an emulator on `dir` in a process of its own, makes one write through it, and resolves to its organization. */
function startInProcess(dir: string): Promise<string> {
  const script = `
    const { startEmulator } = require(${JSON.stringify(EMULATOR)});
    startEmulator({ dataDir: ${JSON.stringify(dir)}, port: 0 }).then(async (emu) => {
      process.stdout.write(emu.credentials.organizationId + '\\n');
      await emu.close();
    }, (err) => { process.stderr.write(String(err && err.message)); process.exit(1); });`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`emulator process exited ${code}: ${err}`))));
  });
}

test('four emulators starting at once on a new folder, three folders over: one seed, one organization, all serve it', async () => {
  // The race is in turning a new file to WAL and migrating it: each new folder runs it again.
  for (let round = 0; round < 3; round++) {
    const dir = newDir();
    const organizations = await Promise.all([1, 2, 3, 4].map(() => startInProcess(dir)));
    expect(new Set(organizations).size).toBe(1);
    const db = new Database(path.join(dir, DATABASE_FILE), { readonly: true });
    try {
      expect(db.prepare('SELECT COUNT(*) AS n FROM organizations').get()).toEqual({ n: 1 });
    } finally {
      db.close();
    }
  }
}, 120_000);
