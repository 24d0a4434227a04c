import { hostname } from 'node:os';
import type pg from 'pg';
import type { RunRecord, RunStatus } from '../shared/run';
import { StoreOpenError } from './database';
import { LATEST_SCHEMA_VERSION, migrationChecksum, migrationsFor, SchemaTooNewError } from './migrations';
import { PgDriver } from './pg-driver';
import { resilientPool } from './pg-pool';
import { runFromRow } from './records';
import { SqlRouteStore } from './route-store';
import { LIVE_STATUSES, RunStore, type StoredRun } from './run-store';

/** The address that chooses the office store at the composition roots. */
export const DATABASE_URL_ENV = 'PORTAL_DESK_DATABASE_URL';

export interface PgStoreOptions {
  /** The clock for audit rows and purge (tests pin it). */
  now?: () => Date;
  /** Never write: no schema upgrade, and every transaction is read-only (verify, replay). */
  readOnly?: boolean;
  /** A folder on this desk for files kept beside the store (receipts). */
  localFolder?: string;
  /** Connections this desk keeps open (default 4). */
  poolSize?: number;
  /** This desk's name in `owner_host` (default: the machine's host name). */
  host?: string;
}

/** One lock number for schema upgrades, so two desks starting at once upgrade once. */
const MIGRATION_LOCK = 0x7064_0019;

type Client = pg.PoolClient;

/** The address as messages show it: never its password. */
function safeDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://(an address that does not parse)';
  }
}

/**
 * Opens the office store at `url` (postgres://user@host:port/db), upgrading its schema unless
 * `readOnly`. Every failure is a StoreOpenError with one line: nothing was changed.
 */
export async function openPgStore(url: string, options: PgStoreOptions = {}): Promise<PgStore> {
  const shown = safeDatabaseUrl(url);
  // A connection the server drops (a restart) must not crash the process.
  const pool = resilientPool({ connectionString: url, max: options.poolSize ?? 4, connectionTimeoutMillis: 10_000 });
  try {
    const c = await pool.connect();
    try {
      const version = options.readOnly ? await readVersion(c) : await migratePg(c);
      if (version > LATEST_SCHEMA_VERSION) {
        throw new SchemaTooNewError(
          `The database is at schema version ${version}, newer than this Portal Desk understands (${LATEST_SCHEMA_VERSION}). Nothing was changed; update Portal Desk to open it.`,
        );
      }
      if (options.readOnly && version < LATEST_SCHEMA_VERSION) {
        throw new StoreOpenError(shown, version === 0 ? 'it is not a Portal Desk store (no schema in that database); check PORTAL_DESK_DATABASE_URL' : `it is at schema version ${version}; open it once with a recording command to upgrade it`);
      }
    } finally {
      c.release();
    }
  } catch (err) {
    await pool.end().catch(() => undefined);
    if (err instanceof StoreOpenError) throw err;
    const message = err instanceof Error ? err.message.split('\n')[0]! : String(err);
    throw new StoreOpenError(shown, message.length > 200 ? `${message.slice(0, 200)}…` : message, { cause: err });
  }
  return new PgStore(pool, shown, options);
}

async function readVersion(c: Client): Promise<number> {
  const exists = await c.query<{ t: string | null }>("SELECT to_regclass('schema_migrations')::text AS t");
  if (!exists.rows[0]?.t) return 0;
  const r = await c.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations');
  return r.rows[0]?.v ?? 0;
}

/** Brings the schema up to date in one transaction under an advisory lock; returns the version found. */
async function migratePg(c: Client): Promise<number> {
  await c.query('BEGIN');
  try {
    await c.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await c.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)`);
    const from = await readVersion(c);
    if (from <= LATEST_SCHEMA_VERSION) {
      for (const m of migrationsFor('postgres')) {
        if (m.version <= from) continue;
        await c.query(m.sql);
        await c.query('INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES ($1, $2, $3, $4)', [m.version, m.name, migrationChecksum(m), new Date().toISOString()]);
      }
    }
    await c.query('COMMIT');
    return from;
  } catch (err) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/**
 * The office store: the run store (src/store/run-store.ts) in one PostgreSQL database several
 * desks share, each run marked with the desk that holds it (`owner_host`). Besides what every
 * store does, what the office queue needs: the newest run of a case, and taking over a run whose
 * desk stopped.
 */
export class PgStore extends RunStore<PgDriver> {
  constructor(pool: pg.Pool, path: string, options: PgStoreOptions = {}) {
    super(new PgDriver(pool, path, options.readOnly ?? false), path, {
      now: options.now ?? (() => new Date()),
      host: options.host ?? hostname(),
      localFolder: options.localFolder,
    });
  }

  override close(): Promise<void> {
    return this.driver.close();
  }

  /** Queries outside the store's own (the office queue, the human-wait board): same pool, same address. */
  get connections(): pg.Pool {
    return this.driver.pool;
  }

  /** The office's learned routes, on this store's connections (one route per portal and task for every desk). */
  routeStore(): SqlRouteStore {
    return new SqlRouteStore(this.driver);
  }

  async schemaVersion(): Promise<number> {
    const c = await this.driver.pool.connect();
    try {
      return await readVersion(c);
    } finally {
      c.release();
    }
  }

  /** The newest run of this case (same case id, client, portal and task), or null: the office queue's check before it runs a case. */
  async latestRunOf(c: { caseId: string; clientId: string; portal: string; task: string }): Promise<RunRecord | null> {
    const row = await this.driver.get<StoredRun>('SELECT * FROM runs WHERE case_id = ? AND client_id = ? AND portal = ? AND task = ? ORDER BY started_at DESC, seq DESC LIMIT 1', [
      c.caseId,
      c.clientId,
      c.portal,
      c.task,
    ]);
    return row ? runFromRow(row) : null;
  }

  /**
   * Takes over a run whose desk lost it (the office queue's lease on its case expired): a live
   * run becomes `interrupted` with an audit row naming the desk that had it, so `resume` may go
   * on from its progress record. Returns false when the run is not live (already interrupted,
   * or final).
   */
  async takeOver(runId: string, why: string): Promise<boolean> {
    const at = this.now().toISOString();
    return this.driver.write(async (tx) => {
      const row = await this.lockRun(tx, runId);
      if (!LIVE_STATUSES.includes(row.status as RunStatus)) return false;
      const reason = `Interrupted: ${why} (desk ${row.owner_host ?? 'unknown'}, pid ${row.owner_pid ?? 'unknown'}) after step ${row.step_count}; resume to continue`;
      await this.interrupt(tx, row, reason, at, { ownerPid: row.owner_pid, ownerHost: row.owner_host, steps: row.step_count });
      return true;
    });
  }
}
