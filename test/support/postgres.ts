import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { postgresBinaries, startThrowAwayPostgres } from '../../lab/bench/postgres';

/**
 * A throw-away PostgreSQL cluster for tests: initdb in a temporary folder, a server on a free
 * loopback port (socket in that folder too), trust authentication, stopped and deleted when the
 * process that started it ends. As root, initdb and pg_ctl run as the `postgres` user (PostgreSQL
 * refuses root). Binaries: $PORTAL_DESK_PG_BIN, else the newest /usr/lib/postgresql/N/bin.
 *
 * One cluster per vitest run: test/support/postgres-global.ts (the integration tier's global setup)
 * starts it and provides its port; `sharedPostgres` in a test file connects to it, and every file
 * creates databases of its own in it (`createDatabase`). Starting a cluster per file cost about
 * 20 files a few seconds each.
 *
 * When no binaries are installed, `sharedPostgres` returns null after printing why, loudly: the
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

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's PostgreSQL cluster (postgres-global.ts): its port, or null when no binaries are installed. */
    postgresPort: number | null;
  }
}

let shared: Promise<PgCluster | null> | null = null;

/**
 * The run's one cluster (started by the global setup; each test file creates its own databases in
 * it). `stop()` on it does nothing: the global setup stops the cluster when the run ends.
 */
export function sharedPostgres(): Promise<PgCluster | null> {
  shared ??= (async () => {
    const port = inject('postgresPort');
    if (port === undefined) throw new Error('No PostgreSQL cluster for this run: the file is not in the integration tier (test/support/tiers.ts), whose global setup starts it');
    if (port === null) {
      console.warn(`\n!!! ${POSTGRES_MISSING}\n`);
      return null;
    }
    return clusterAt(port, () => undefined);
  })();
  return shared;
}

/** A cluster of its own, started now (the global setup's; a test wanting a server it may stop). */
export async function startPostgres(): Promise<PgCluster | null> {
  const bin = postgresBin();
  if (!bin) {
    console.warn(`\n!!! ${POSTGRES_MISSING}\n`);
    return null;
  }
  // Speed over durability: a test run's cluster is gone with the run.
  const server = await startThrowAwayPostgres({ durable: false, maxConnections: 300 });
  if ('skipped' in server) throw new Error(server.skipped);
  return clusterAt(server.port, server.stop);
}

function clusterAt(port: number, stop: () => void): PgCluster {
  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  // Unique across the run's processes (a worker process may run several files, and pids are reused).
  const run = randomBytes(4).toString('hex');
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
      const name = `${prefix}_${run}_${++n}`;
      await query('postgres', `CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
      return url(name);
    },
    query,
    stop,
  };
}
