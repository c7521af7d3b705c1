import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS, type Migration } from './migrations';

/** The emulator's SQLite handle (better-sqlite3: synchronous, one connection per emulator). */
export type Db = Database.Database;

/** File name of the emulator database inside its data folder. */
export const DATABASE_FILE = 'emulator.sqlite';

/**
 * Opens (creating when needed) the database in `dataDir` (mode 0600): WAL journal, foreign keys on,
 * and every pending migration applied in order, each in its own transaction.
 */
export function openDatabase(dataDir: string): Db {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // Machine configs may hold secrets (module env): owner-only, and SQLite gives its -wal
  // and -shm files the database file's permissions.
  const file = path.join(dataDir, DATABASE_FILE);
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  fs.chmodSync(file, 0o600);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db, MIGRATIONS);
  return db;
}

/** Applies the migrations not yet recorded in `schema_migrations`; returns their versions. */
export function migrate(db: Db, migrations: readonly Migration[]): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL
  )`);
  const applied = new Set(
    db
      .prepare<[], { version: number }>('SELECT version FROM schema_migrations')
      .all()
      .map((r) => r.version),
  );
  const record = db.prepare<[number, string, string]>(
    'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
  );
  const done: number[] = [];
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    if (applied.has(m.version)) continue;
    db.transaction(() => {
      db.exec(m.sql);
      record.run(m.version, m.name, new Date().toISOString());
    })();
    done.push(m.version);
  }
  return done;
}
