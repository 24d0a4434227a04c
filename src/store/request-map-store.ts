import { LearnedMapEntry, RequestMapEntry, type RequestMapStore } from '../shared/request-map';
import { openDatabase } from './database';
import { PgDriver } from './pg-driver';
import { PgStore } from './pg-store';
import type { SqlRunner } from './sql-driver';
import { SqliteDriver } from './sqlite-driver';
import { SqliteStore } from './store';
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

/** The request maps on either driver: a desk's SQLite file, or the office database every desk shares. */
class SqlRequestMapStore implements RequestMapStore {
  constructor(private readonly sql: SqlRunner) {}

  async listMap(portal?: string): Promise<LearnedMapEntry[]> {
    const rows = portal === undefined ? await this.sql.all<MapRow>('SELECT * FROM request_map ORDER BY portal, id') : await this.sql.all<MapRow>('SELECT * FROM request_map WHERE portal = ? ORDER BY id', [portal]);
    return rows.map(parsed).filter((e): e is LearnedMapEntry => e !== undefined);
  }

  async learn(portal: string, entry: RequestMapEntry, taughtBy: string, runId: string | null): Promise<LearnedMapEntry> {
    const checked = RequestMapEntry.parse(entry);
    const row = await this.sql.get<MapRow>(
      `INSERT INTO request_map (portal, entry_key, version, entry_json, taught_by, run_id, created_at) VALUES (?, ?, 1, ?, ?, ?, ?)
       ON CONFLICT (portal, entry_key) DO UPDATE SET version = request_map.version + 1, entry_json = excluded.entry_json, taught_by = excluded.taught_by, run_id = excluded.run_id, created_at = excluded.created_at
       RETURNING *`,
      [portal, entryKey(checked), JSON.stringify(checked), taughtBy, runId, new Date().toISOString()],
    );
    return parsed(row!)!;
  }

  async removeMapEntry(portal: string, id: number): Promise<boolean> {
    return (await this.sql.run('DELETE FROM request_map WHERE portal = ? AND id = ?', [portal, id])) > 0;
  }
}

/** The learned request maps beside a run store: the office's table for PostgreSQL, a desk store's own on its connection and queue (another kind of store: the file on a connection of its own, closed with `close`). */
export function requestMapsOf(store: Store): RequestMapStore & { close(): void } {
  if (store instanceof PgStore) return Object.assign(new SqlRequestMapStore(new PgDriver(store.connections, store.path, false)), { close: () => undefined });
  if (store instanceof SqliteStore) return Object.assign(new SqlRequestMapStore(store.besideRunner()), { close: () => undefined });
  const driver = new SqliteDriver(openDatabase(store.path));
  return Object.assign(new SqlRequestMapStore(driver), { close: () => driver.close() });
}
