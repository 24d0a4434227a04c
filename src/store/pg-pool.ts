import pg from 'pg';

/**
 * A PostgreSQL pool whose dropped connections never crash the process. pg's pool listens for
 * errors only on its idle clients: a client checked out between two queries (inside a
 * transaction, say) whose connection the server ends (a restart, `pg_terminate_backend`, a desk
 * frozen and cut off) emits 'error' with nobody listening, and Node ends the process. Here every
 * client the pool makes keeps a listener: the error is left to the query in flight or the next one,
 * which fails and is handled where it was asked, and the pool drops the broken client.
 */
export function resilientPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(config);
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}
