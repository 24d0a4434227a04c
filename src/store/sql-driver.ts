/**
 * What the run store (`RunStore`, src/store/run-store.ts) needs of a SQL database, and all it
 * knows of one: statements and transactions, written once with `?` placeholders; the locks and
 * the few pieces of SQL that differ between SQLite (a desk's own file, better-sqlite3) and
 * PostgreSQL (an office's shared database, pg). Two drivers fill it in: `SqliteDriver` and
 * `PgDriver`. Every meaning of a run (its chain, fencing, verify, export, purge, secrets) lives in
 * the run store, above this line, once.
 */

export type DialectName = 'sqlite' | 'postgres';

/** Statements, alone or inside a transaction. Parameters are positional (`?`); a Buffer is a BLOB (BYTEA). */
export interface SqlRunner {
  all<T>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  get<T>(sql: string, params?: readonly unknown[]): Promise<T | undefined>;
  /** Runs a statement that returns no rows; answers how many rows it changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
}

/** A write transaction: its statements, and the locks it may take until it ends. */
export interface WriteTransaction extends SqlRunner {
  /**
   * Holds the lock named `space`/`key` until the transaction ends, so a check and the write it
   * allows are one step for every writer of the database: PostgreSQL's advisory transaction lock;
   * on SQLite the transaction already holds the one write lock of the file.
   */
  lock(space: number, key: string): Promise<void>;
}

/** The few pieces of SQL the two dialects write differently, for statements written once around them. */
export interface Dialect {
  readonly name: DialectName;
  /**
   * Ends a SELECT whose rows a write transaction goes on to change: PostgreSQL locks them until the
   * transaction ends; SQLite's write transaction holds the whole file already.
   */
  readonly forUpdate: string;
  /** The hidden column that orders a table's rows as they were inserted (`rowid`; `seq` in PostgreSQL). */
  readonly insertionOrder: string;
  /** A condition: `column` is one of a list, given as ONE parameter made by `list`. */
  inList(column: string): string;
  list(values: readonly string[]): unknown;
}

export interface SqlDriver extends SqlRunner {
  readonly dialect: Dialect;
  /**
   * One write transaction: it commits when `work` resolves and rolls back when it throws. A
   * transaction never shares its connection with another statement of this store: SQLite's runs
   * one at a time on the store's connection (better-sqlite3 is synchronous, and `work` awaits);
   * PostgreSQL's takes a pooled connection of its own.
   */
  write<T>(work: (tx: WriteTransaction) => Promise<T>): Promise<T>;
  /** One consistent read of several statements (verify, export): nothing written between them shows. */
  read<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T>;
  /** After a purge freed space: SQLite hands the freed pages back to the file system; PostgreSQL's autovacuum does it. */
  reclaimSpace(): Promise<void>;
  close(): void | Promise<void>;
}
