import type Database from 'better-sqlite3';
import type { Dialect, SqlDriver, SqlRunner, WriteTransaction } from './sql-driver';

const SQLITE: Dialect = {
  name: 'sqlite',
  forUpdate: '',
  insertionOrder: 'rowid',
  inList: (column) => `${column} IN (SELECT value FROM json_each(?))`,
  list: (values) => JSON.stringify(values),
};

/**
 * The run store's SQL on one better-sqlite3 connection (a desk's own file, opened by
 * `openDatabase`). better-sqlite3 is synchronous, but the run store's transactions await between
 * their statements; on one connection, a statement of another call run in such a gap would land
 * inside that transaction. So every statement and transaction of this driver runs in turn, one
 * after the other: a call waits for the transaction before it to commit or roll back. A write
 * transaction is BEGIN IMMEDIATE: it takes the file's one write lock at once (waiting up to the
 * busy timeout for another process's), so its reads and its writes are one step.
 */
export class SqliteDriver implements SqlDriver {
  readonly dialect = SQLITE;
  private readonly statements = new Map<string, Database.Statement>();
  /** Calls asked for and not yet ended, and the end of the last of them. */
  private pending = 0;
  private queue: Promise<void> = Promise.resolve();
  /** Statements on the connection now (inside the queue's turn). */
  private readonly onConnection: WriteTransaction = {
    all: async <T>(sql: string, params: readonly unknown[] = []) => this.prepare(sql).all(...params) as T[],
    get: async <T>(sql: string, params: readonly unknown[] = []) => this.prepare(sql).get(...params) as T | undefined,
    run: async (sql: string, params: readonly unknown[] = []) => this.prepare(sql).run(...params).changes,
    // The write transaction holds the file's one write lock: every other writer waits already.
    lock: async () => undefined,
  };

  constructor(readonly db: Database.Database) {}

  all<T>(sql: string, params?: readonly unknown[]): Promise<T[]> {
    return this.inTurn(() => this.onConnection.all<T>(sql, params));
  }

  get<T>(sql: string, params?: readonly unknown[]): Promise<T | undefined> {
    return this.inTurn(() => this.onConnection.get<T>(sql, params));
  }

  run(sql: string, params?: readonly unknown[]): Promise<number> {
    return this.inTurn(() => this.onConnection.run(sql, params));
  }

  write<T>(work: (tx: WriteTransaction) => Promise<T>): Promise<T> {
    return this.inTurn(() => this.transaction('BEGIN IMMEDIATE', work));
  }

  read<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T> {
    // A deferred transaction reads one snapshot of the file (WAL) from its first read to its end.
    return this.inTurn(() => this.transaction('BEGIN', work));
  }

  reclaimSpace(): Promise<void> {
    return this.inTurn(async () => {
      this.db.pragma('incremental_vacuum');
    });
  }

  /** Closes the connection once the work already asked for is done (at once when there is none). */
  close(): void {
    if (this.pending > 0) void this.queue.then(() => this.closeNow());
    else this.closeNow();
  }

  private closeNow(): void {
    if (this.db.open) this.db.close();
  }

  private async transaction<T>(begin: string, work: (tx: WriteTransaction) => Promise<T>): Promise<T> {
    this.db.exec(begin);
    try {
      const result = await work(this.onConnection);
      this.db.exec('COMMIT');
      return result;
    } catch (err) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw err;
    }
  }

  /**
   * Runs `work` when the work asked for before it has ended: at once (synchronously up to its first
   * await, as better-sqlite3 itself would) when there is none.
   */
  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    const result = this.pending === 0 ? work() : this.queue.then(work);
    this.pending++;
    // Counted down before the caller's own continuation runs: a call made there starts at once.
    const done = () => {
      this.pending--;
    };
    this.queue = result.then(done, done);
    return result;
  }

  private prepare(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
