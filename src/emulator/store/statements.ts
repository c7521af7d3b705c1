import type { Statement } from 'better-sqlite3';
import type { Db } from '../db/database';

const caches = new WeakMap<Db, Map<string, Statement<unknown[], unknown>>>();

/**
 * A prepared statement for `sql`, prepared once per database handle. `P` is the tuple of
 * positional parameters (or one object of named ones), `R` the row type.
 */
export function stmt<P extends unknown[] | object = unknown[], R = unknown>(db: Db, sql: string): Statement<P, R> {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  let s = cache.get(sql);
  if (!s) {
    s = db.prepare(sql) as Statement<unknown[], unknown>;
    cache.set(sql, s);
  }
  return s as unknown as Statement<P, R>;
}

/** A fresh random identifier (UUID v4), the form the service uses for ids. */
export function newId(): string {
  return crypto.randomUUID();
}
