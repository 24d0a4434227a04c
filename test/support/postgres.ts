import pg from 'pg';
import { postgresBinaries, startThrowAwayPostgres } from '../../lab/bench/postgres';

/**
 * A throw-away PostgreSQL cluster for tests: initdb in a temporary folder, a server on a free
 * loopback port (socket in that folder too), trust authentication, stopped and deleted when the
 * test process ends. As root, initdb and pg_ctl run as the `postgres` user (PostgreSQL refuses
 * root). Binaries: $PORTAL_DESK_PG_BIN, else the newest /usr/lib/postgresql/N/bin.
 *
 * When no binaries are installed, `startPostgres` returns null after printing why, loudly: the
 * Postgres legs of the store suite then skip (install Debian's `postgresql`; `.ci/run` does).
 */
export interface PgCluster {
  port: number;
  /** postgres://postgres@127.0.0.1:PORT/DB */
  url(database?: string): string;
  /** A new database (empty, or a copy of `template`); returns its address. */
  createDatabase(prefix?: string, template?: string): Promise<string>;
  /** Runs one statement as the superuser on `database`. */
  query<T extends pg.QueryResultRow = pg.QueryResultRow>(database: string, sql: string, params?: unknown[]): Promise<T[]>;
  stop(): void;
}

/** The PostgreSQL binaries the tests start their cluster from, or null (then the PostgreSQL legs skip). */
export function postgresBin(): string | null {
  return postgresBinaries();
}

export const POSTGRES_MISSING =
  'PostgreSQL binaries not found (no /usr/lib/postgresql/N/bin/initdb, no $PORTAL_DESK_PG_BIN): the PostgreSQL legs are SKIPPED. Install Debian\'s "postgresql" package (.ci/run does).';

let shared: Promise<PgCluster | null> | null = null;

/** One cluster per test process (every file of a worker shares it; each test takes its own database). */
export function sharedPostgres(): Promise<PgCluster | null> {
  shared ??= startPostgres();
  return shared;
}

export async function startPostgres(): Promise<PgCluster | null> {
  const bin = postgresBin();
  if (!bin) {
    console.warn(`\n!!! ${POSTGRES_MISSING}\n`);
    return null;
  }
  // Speed over durability: a test's cluster is gone with the test process.
  const server = await startThrowAwayPostgres({ durable: false, maxConnections: 200 });
  if ('skipped' in server) throw new Error(server.skipped);
  const { port, stop } = server;
  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  let n = 0;
  const query = async <T extends pg.QueryResultRow>(database: string, sql: string, params: unknown[] = []): Promise<T[]> => {
    // Counts come back as numbers (bigint is text by default), as SQLite gives them.
    const types = { getTypeParser: (oid: number, format?: 'text' | 'binary') => (oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) };
    const client = new pg.Client({ connectionString: url(database), types: types as pg.CustomTypesConfig });
    await client.connect();
    try {
      return (await client.query<T>(sql, params)).rows;
    } finally {
      await client.end();
    }
  };
  return {
    port,
    url,
    async createDatabase(prefix = 'pd', template?: string) {
      const name = `${prefix}_${process.pid}_${++n}`;
      await query('postgres', `CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
      return url(name);
    },
    query,
    stop,
  };
}
