import type Database from 'better-sqlite3';
import { openDatabase, type DatabaseOptions } from './database';
import { schemaVersion } from './migrations';
import { RunStore } from './run-store';
import { SqliteDriver } from './sqlite-driver';

export interface StoreOptions extends DatabaseOptions {
  /** The clock for audit rows and purge (tests pin it). */
  now?: () => Date;
}

/** Opens the database at `path` (see `defaultDbPath`), upgrading its schema, and returns the store. */
export function openStore(path: string, options: StoreOptions = {}): SqliteStore {
  return new SqliteStore(openDatabase(path, options), path, options.now ?? (() => new Date()));
}

/**
 * A desk's store: the run store (src/store/run-store.ts) in one SQLite file, every run in it this
 * desk's. The methods are async although better-sqlite3 is synchronous: the driver runs the
 * store's statements and transactions one after the other on its one connection.
 */
export class SqliteStore extends RunStore<SqliteDriver> {
  constructor(db: Database.Database, path: string, now: () => Date) {
    super(new SqliteDriver(db), path, { now, host: null });
  }

  get schemaVersion(): number {
    return schemaVersion(this.driver.db);
  }

  /** Closes the file once the writes already asked for are done. */
  override close(): void {
    this.driver.close();
  }
}
