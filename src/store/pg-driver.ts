import type pg from 'pg';
import type { Dialect, SqlDriver, SqlRunner, WriteTransaction } from './sql-driver';

const POSTGRES: Dialect = {
  name: 'postgres',
  forUpdate: ' FOR UPDATE',
  insertionOrder: 'seq',
  inList: (column) => `${column} = ANY(?::text[])`,
  list: (values) => [...values],
};

/**
 * The run store's SQL on a pg pool (an office database several desks share). Statements written
 * with `?` are numbered (`$1`, `$2`, …) once each. A transaction takes a pooled connection of its
 * own for its whole length and gives it back after COMMIT or ROLLBACK, so the pool's other
 * connections serve this desk's other calls meanwhile; several desks are kept apart by the
 * database's locks (row locks through `forUpdate`, advisory locks through `lock`).
 */
export class PgDriver implements SqlDriver {
  readonly dialect = POSTGRES;
  private closed = false;

  /** `readOnly`: every write transaction is refused before it begins (verify, replay); `where` names the store in that refusal. */
  constructor(
    readonly pool: pg.Pool,
    private readonly where: string,
    private readonly readOnly: boolean,
  ) {}

  async all<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return (await this.pool.query(numbered(sql), [...params])).rows as T[];
  }

  async get<T>(sql: string, params?: readonly unknown[]): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  async run(sql: string, params: readonly unknown[] = []): Promise<number> {
    return (await this.pool.query(numbered(sql), [...params])).rowCount ?? 0;
  }

  async write<T>(work: (tx: WriteTransaction) => Promise<T>): Promise<T> {
    if (this.readOnly) throw new Error(`The store at ${this.where} was opened read-only; nothing was written`);
    return this.transaction('BEGIN', work);
  }

  read<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T> {
    return this.transaction('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', work);
  }

  async reclaimSpace(): Promise<void> {
    // PostgreSQL's autovacuum reuses the space of dropped screenshots.
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  private async transaction<T>(begin: string, work: (tx: WriteTransaction) => Promise<T>): Promise<T> {
    const c = await this.pool.connect();
    // A connection whose ROLLBACK failed may still hold the transaction: it leaves the pool
    // (release with the error) instead of serving the next caller inside it.
    let broken: Error | undefined;
    try {
      await c.query(begin);
      const result = await work(onClient(c));
      await c.query('COMMIT');
      return result;
    } catch (err) {
      await c.query('ROLLBACK').catch((rollback: unknown) => {
        broken = rollback instanceof Error ? rollback : new Error(String(rollback));
      });
      throw err;
    } finally {
      c.release(broken);
    }
  }
}

function onClient(c: pg.PoolClient): WriteTransaction {
  return {
    all: async <T>(sql: string, params: readonly unknown[] = []) => (await c.query(numbered(sql), [...params])).rows as T[],
    get: async <T>(sql: string, params: readonly unknown[] = []) => (await c.query(numbered(sql), [...params])).rows[0] as T | undefined,
    run: async (sql: string, params: readonly unknown[] = []) => (await c.query(numbered(sql), [...params])).rowCount ?? 0,
    lock: async (space: number, key: string) => {
      await c.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [space, key]);
    },
  };
}

const numberedCache = new Map<string, string>();

/** `?` placeholders as PostgreSQL's `$1`, `$2`, …; a `?` inside a quoted string or name is left alone. */
function numbered(sql: string): string {
  let out = numberedCache.get(sql);
  if (out !== undefined) return out;
  let n = 0;
  out = sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\?/g, (token) => (token === '?' ? `$${++n}` : token));
  numberedCache.set(sql, out);
  return out;
}
