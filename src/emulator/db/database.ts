import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { FleetformError } from '../../domain/errors';
import { MIGRATIONS, type Migration } from './migrations';

/** The emulator's SQLite handle (better-sqlite3: synchronous, one connection per emulator). */
export type Db = Database.Database;

/** File name of the emulator database inside its data folder. */
export const DATABASE_FILE = 'emulator.sqlite';

/** The data folder or its database cannot be used; names the file and what to do. It is never overwritten. */
export class DataFolderError extends FleetformError {}

function unusable(file: string, what: string, hint: string): DataFolderError {
  return new DataFolderError(`${file} ${what}`, { path: file, hint });
}

/** Turns a failure to open or migrate `file` into an error naming it and the way out. */
function describeOpenFailure(file: string, dataDir: string, err: unknown): Error {
  if (err instanceof DataFolderError) return err;
  const code = (err as { code?: string }).code ?? '';
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || code.startsWith('SQLITE_READONLY') || code === 'SQLITE_CANTOPEN') {
    return unusable(
      file,
      'cannot be written',
      `give your user write access to ${dataDir} and its files, or start the emulator with another --data folder`,
    );
  }
  if (code === 'ENOTDIR' || code === 'EISDIR') {
    return unusable(
      file,
      'is not where a database can be',
      `${dataDir} must be a folder; move what is there away or pick another --data folder`,
    );
  }
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    return unusable(
      file,
      'is not an emulator database or is damaged (left untouched)',
      `move it away (e.g. rename it to ${DATABASE_FILE}.broken) to start from a fresh seed, or restore a copy`,
    );
  }
  return err instanceof Error ? err : new Error(String(err));
}

/** How long a statement waits for another process's lock on the database before failing. */
const BUSY_TIMEOUT_MS = 30_000;

/** Whether an error is SQLite's "another connection holds the lock". */
function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/** Runs `step` again, a few milliseconds apart, while it fails on another process's lock, for up to BUSY_TIMEOUT_MS. */
function untilNotBusy(step: () => void): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let wait = 5; ; wait = Math.min(wait * 2, 200)) {
    try {
      step();
      return;
    } catch (err) {
      if (!isBusy(err) || Date.now() + wait > deadline) throw err;
      // The process is opening its data folder: nothing else of it runs yet.
      Atomics.wait(pause, 0, 0, wait);
    }
  }
}

/**
 * Opens (creating when needed) the database in `dataDir` (mode 0600): WAL journal, foreign keys on,
 * and every pending migration applied in order, each in its own transaction. A folder that
 * cannot be written, a damaged file or one from a newer version is an error naming the file;
 * nothing is overwritten.
 */
export function openDatabase(dataDir: string): Db {
  const file = path.join(dataDir, DATABASE_FILE);
  let db: Db | undefined;
  try {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    // Machine configs may hold secrets (module env): owner-only, and SQLite gives its -wal
    // and -shm files the database file's permissions.
    fs.closeSync(fs.openSync(file, 'a', 0o600));
    fs.chmodSync(file, 0o600);
    const opened = new Database(file);
    db = opened;
    // First, so that every step below waits for another process opening the same folder.
    // Processes of one command share the folder (`cdktf deploy '*'` runs a provider per
    // stack, each with its emulator): on busy cores one may hold the write lock for seconds.
    opened.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // Turning a new file to WAL takes a lock SQLite does not wait for: each step is asked
    // again while another process holds it (each is the same when done twice).
    untilNotBusy(() => {
      if (opened.pragma('journal_mode', { simple: true }) !== 'wal') opened.pragma('journal_mode = WAL');
      opened.pragma('synchronous = NORMAL');
      opened.pragma('foreign_keys = ON');
      refuseNewerSchema(opened, file, MIGRATIONS);
      migrate(opened, MIGRATIONS);
    });
    return opened;
  } catch (err) {
    db?.close();
    throw describeOpenFailure(file, dataDir, err);
  }
}

/** A database whose recorded migrations go beyond the known ones was written by a newer fleetform. */
function refuseNewerSchema(db: Db, file: string, migrations: readonly Migration[]): void {
  const known = Math.max(0, ...migrations.map((m) => m.version));
  const table = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
  if (!table) return;
  const row = db.prepare<[], { version: number | null }>('SELECT MAX(version) AS version FROM schema_migrations').get();
  const newest = row?.version ?? 0;
  if (newest > known) {
    throw unusable(
      file,
      `was written by a newer fleetform (schema version ${newest}; this one knows up to ${known}) and is left untouched`,
      'upgrade fleetform to the version that wrote it, or start the emulator with another --data folder',
    );
  }
}

/** Applies the migrations not yet recorded in `schema_migrations`; returns their versions. */
export function migrate(db: Db, migrations: readonly Migration[]): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL
  )`);
  const record = db.prepare<[number, string, string]>('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const done: number[] = [];
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    // Checked under the write lock: of two processes opening one folder, one applies it.
    const applied = db
      .transaction(() => {
        if (db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(m.version)) return false;
        db.exec(m.sql);
        record.run(m.version, m.name, new Date().toISOString());
        return true;
      })
      .immediate();
    if (applied) done.push(m.version);
  }
  return done;
}
