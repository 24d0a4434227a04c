import type Database from 'better-sqlite3';
import type pg from 'pg';
import { LearnedMapEntry, RequestMapEntry, type RequestMapStore } from '../shared/request-map';
import { openDatabase } from './database';
import { PgStore } from './pg-store';
import type { Store } from './store-api';

/**
 * What the clerk taught the commit gate's request map, kept in the store's `request_map` table
 * (migration 7): one row per portal and entry (method, host, path and shape), its version bumped
 * when the same entry is taught again, with who taught it and in which run. The JSON is checked
 * against the entry schema on every read; a row that fails it is never used (and listed as damaged
 * nowhere: `portals map remove` takes it by id).
 */
interface MapRow {
  id: number | string;
  portal: string;
  version: number;
  entry_json: string;
  taught_by: string;
  run_id: string | null;
  created_at: string;
}

/** The key one entry is kept under: the same method, host, path and shape is one row. */
function entryKey(entry: RequestMapEntry): string {
  const { kind: _kind, ...shape } = RequestMapEntry.parse(entry);
  return JSON.stringify(shape, Object.keys(shape).sort());
}

function parsed(row: MapRow): LearnedMapEntry | undefined {
  try {
    const entry = RequestMapEntry.parse(JSON.parse(row.entry_json));
    return LearnedMapEntry.parse({ portal: row.portal, id: Number(row.id), version: row.version, entry, taughtBy: row.taught_by, runId: row.run_id, createdAt: row.created_at });
  } catch {
    return undefined;
  }
}

class SqliteRequestMapStore implements RequestMapStore {
  constructor(private readonly db: Database.Database) {}

  async listMap(portal?: string): Promise<LearnedMapEntry[]> {
    const rows = (portal === undefined ? this.db.prepare('SELECT * FROM request_map ORDER BY portal, id').all() : this.db.prepare('SELECT * FROM request_map WHERE portal = ? ORDER BY id').all(portal)) as MapRow[];
    return rows.map(parsed).filter((e): e is LearnedMapEntry => e !== undefined);
  }

  async learn(portal: string, entry: RequestMapEntry, taughtBy: string, runId: string | null): Promise<LearnedMapEntry> {
    const checked = RequestMapEntry.parse(entry);
    const row = this.db
      .prepare(
        `INSERT INTO request_map (portal, entry_key, version, entry_json, taught_by, run_id, created_at) VALUES (?, ?, 1, ?, ?, ?, ?)
         ON CONFLICT (portal, entry_key) DO UPDATE SET version = version + 1, entry_json = excluded.entry_json, taught_by = excluded.taught_by, run_id = excluded.run_id, created_at = excluded.created_at
         RETURNING *`,
      )
      .get(portal, entryKey(checked), JSON.stringify(checked), taughtBy, runId, new Date().toISOString()) as MapRow;
    return parsed(row)!;
  }

  async removeMapEntry(portal: string, id: number): Promise<boolean> {
    return this.db.prepare('DELETE FROM request_map WHERE portal = ? AND id = ?').run(portal, id).changes > 0;
  }
}

class PgRequestMapStore implements RequestMapStore {
  constructor(private readonly pool: pg.Pool) {}

  async listMap(portal?: string): Promise<LearnedMapEntry[]> {
    const r = portal === undefined ? await this.pool.query<MapRow>('SELECT * FROM request_map ORDER BY portal, id') : await this.pool.query<MapRow>('SELECT * FROM request_map WHERE portal = $1 ORDER BY id', [portal]);
    return r.rows.map(parsed).filter((e): e is LearnedMapEntry => e !== undefined);
  }

  async learn(portal: string, entry: RequestMapEntry, taughtBy: string, runId: string | null): Promise<LearnedMapEntry> {
    const checked = RequestMapEntry.parse(entry);
    const r = await this.pool.query<MapRow>(
      `INSERT INTO request_map (portal, entry_key, version, entry_json, taught_by, run_id, created_at) VALUES ($1, $2, 1, $3, $4, $5, $6)
       ON CONFLICT (portal, entry_key) DO UPDATE SET version = request_map.version + 1, entry_json = excluded.entry_json, taught_by = excluded.taught_by, run_id = excluded.run_id, created_at = excluded.created_at
       RETURNING *`,
      [portal, entryKey(checked), JSON.stringify(checked), taughtBy, runId, new Date().toISOString()],
    );
    return parsed(r.rows[0]!)!;
  }

  async removeMapEntry(portal: string, id: number): Promise<boolean> {
    return ((await this.pool.query('DELETE FROM request_map WHERE portal = $1 AND id = $2', [portal, id])).rowCount ?? 0) > 0;
  }
}

/** The learned request maps beside a run store: the office's table for PostgreSQL, the SQLite file's own (its own connection, closed with `close`). */
export function requestMapsOf(store: Store): RequestMapStore & { close(): void } {
  if (store instanceof PgStore) return Object.assign(new PgRequestMapStore(store.connections), { close: () => undefined });
  const db = openDatabase(store.path);
  return Object.assign(new SqliteRequestMapStore(db), {
    close: () => {
      if (db.open) db.close();
    },
  });
}
