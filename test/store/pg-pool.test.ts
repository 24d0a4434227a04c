import { afterAll, beforeAll, expect, it } from 'vitest';
import type pg from 'pg';
import { resilientPool } from '../../src/store';
import { sharedPostgres, type PgCluster } from '../support/postgres';

/**
 * The office's pools against a real PostgreSQL whose server ends a connection a desk holds
 * checked out between two queries (office-fencing's frozen desk, cut off with
 * pg_terminate_backend, crashed on an unhandled 'error' event in CI on 7 December).
 */
let cluster: PgCluster | null;
let database = '';
let url = '';

beforeAll(async () => {
  cluster = await sharedPostgres();
  if (!cluster) return;
  url = await cluster.createDatabase('pool');
  database = new URL(url).pathname.slice(1);
});

const pools: pg.Pool[] = [];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
});

it('a checked-out connection the server ends fails its next query, and the process and the pool go on', async (ctx) => {
  if (!cluster) return ctx.skip();
  const pool = resilientPool({ connectionString: url, max: 1, application_name: 'pd-pool-test' });
  pools.push(pool);
  const thrown: unknown[] = [];
  const record = (err: unknown): void => void thrown.push(err);
  process.on('uncaughtException', record);
  try {
    const held = await pool.connect();
    await held.query('BEGIN');
    const [ended] = await cluster.query<{ n: string }>(database, "SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE application_name = 'pd-pool-test'");
    expect(Number(ended?.n)).toBe(1);
    // The server's goodbye reaches the held client while no query of it is in flight.
    await expect.poll(() => (held as unknown as { _ending: boolean; _queryable: boolean })._queryable, { timeout: 5_000 }).toBe(false);
    await expect(held.query('SELECT 1')).rejects.toThrow();
    held.release();
    // The pool dropped the broken client and answers with a new one.
    expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one).toBe(1);
    expect(thrown).toEqual([]);
  } finally {
    process.off('uncaughtException', record);
  }
});
