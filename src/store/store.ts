import type Database from 'better-sqlite3';
import { openDatabase, type DatabaseOptions } from './database';
import { schemaVersion } from './migrations';
import { RunStore } from './run-store';
import { SqlRouteStore } from './route-store';
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

  /**
   * The tables kept beside the runs (learned routes, the request map) on this store's own
   * connection, so their statements take their turn in its queue. On a second connection a write
   * that came while a store transaction was open across an await would wait for it synchronously
   * (better-sqlite3's busy timeout), the whole event loop with it.
   */
  routeStore(): SqlRouteStore {
    return new SqlRouteStore(this.driver);
  }

  /** This store's connection and queue, for the request map beside the runs (see `routeStore`). */
  besideRunner(): SqliteDriver {
    return this.driver;
  }

  /** Closes the file once the writes already asked for are done. */
  override close(): void {
    this.driver.close();
  }
}
