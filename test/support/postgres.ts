import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

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

export function postgresBin(): string | null {
  const given = process.env.PORTAL_DESK_PG_BIN;
  if (given) return existsSync(join(given, 'initdb')) ? given : null;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : null;
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
  const dir = mkdtempSync(join(tmpdir(), 'pd-pg-'));
  const asRoot = userInfo().uid === 0;
  const run = (tool: string, args: string[]) => {
    const command = asRoot ? 'runuser' : join(bin, tool);
    const argv = asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args;
    execFileSync(command, argv, { stdio: ['ignore', 'ignore', 'pipe'], cwd: dir });
  };
  if (asRoot) {
    const pw = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const uid = Number(pw.stdout.trim());
    chownSync(dir, uid, uid);
  }
  chmodSync(dir, 0o700);
  const data = join(dir, 'pg');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync', '--no-instructions']);
  const port = await freePort();
  const settings = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
  run('pg_ctl', ['-D', data, '-o', settings, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start']);
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } catch {
      // Already gone.
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stop);
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

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
