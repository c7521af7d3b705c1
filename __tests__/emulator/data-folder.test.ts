/** A data folder that cannot be used is an error naming the file and what to do; its content is never overwritten. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DATABASE_FILE, startEmulator } from '../../src/emulator';
import { DataFolderError } from '../../src/emulator/db/database';
import { scratchDirs } from './fixture';

const scratch = scratchDirs();

async function refusal(dataDir: string): Promise<DataFolderError> {
  const err = await startEmulator({ dataDir, port: 0 }).then(
    async (e) => {
      await e.close();
      return undefined;
    },
    (e: unknown) => e,
  );
  if (!(err instanceof DataFolderError)) throw new Error(`expected a DataFolderError, got ${String(err)}`);
  return err;
}

test('a damaged database is named, left byte for byte as it was, and the way out is given', async () => {
  const dir = scratch();
  const file = path.join(dir, DATABASE_FILE);
  const junk = Buffer.from('this is not SQLite '.repeat(300));
  fs.writeFileSync(file, junk);
  const err = await refusal(dir);
  expect(err.message).toContain(file);
  expect(err.message).toMatch(/damaged/);
  expect(err.hint).toMatch(/move it away/);
  expect(fs.readFileSync(file).equals(junk)).toBe(true);
});

test('a database from a newer version is refused and left untouched', async () => {
  const dir = scratch();
  const first = await startEmulator({ dataDir: dir, port: 0 });
  await first.close();
  const Database = (await import('better-sqlite3')).default;
  const db = new Database(path.join(dir, DATABASE_FILE));
  db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'from the future', 'later')").run();
  db.close();
  const before = fs.readFileSync(path.join(dir, DATABASE_FILE));
  const err = await refusal(dir);
  expect(err.message).toMatch(/newer fleetform \(schema version 999/);
  expect(err.hint).toMatch(/upgrade fleetform/);
  expect(fs.readFileSync(path.join(dir, DATABASE_FILE)).equals(before)).toBe(true);
});

test('a data folder that cannot be written is named with the fix', async () => {
  const dir = scratch();
  const blocked = path.join(dir, 'blocked');
  // A file where the folder should be fails for every user, root included.
  fs.writeFileSync(blocked, 'a file, not a folder');
  const err = await refusal(path.join(blocked, 'data'));
  expect(err.message).toContain(path.join(blocked, 'data', DATABASE_FILE));
  expect(err.hint).toMatch(/folder/);
});
