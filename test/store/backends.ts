import Database from 'better-sqlite3';
import { afterAll, afterEach, describe } from 'vitest';
import { openPgStore, openStore, type Store } from '../../src/store';
import { postgresBin, sharedPostgres } from '../support/postgres';
import { tempDbPath } from './fixtures';

/**
 * The store suite runs every behaviour against both stores: `describe.each(BACKENDS)` and a
 * fresh `StoreTarget` (a new SQLite file, or a new database in the test process's throw-away
 * PostgreSQL cluster) per test. The PostgreSQL legs skip, loudly, only when no PostgreSQL
 * binaries are installed (`skipPostgres`).
 */
export const BACKENDS = ['sqlite', 'postgres'] as const;
export type Backend = (typeof BACKENDS)[number];

/** True for the Postgres leg when it cannot run (the helper prints why). */
export function skipPostgres(kind: Backend): boolean {
  if (kind !== 'postgres' || postgresBin()) return false;
  console.warn('!!! test/store: PostgreSQL binaries are missing, the postgres legs are SKIPPED (install Debian\'s "postgresql").');
  return true;
}

/** `describe` once per store kind: `title [sqlite]`, `title [postgres]`. */
export function eachStore(title: string, body: (kind: Backend) => void): void {
  for (const kind of BACKENDS) describe.skipIf(skipPostgres(kind))(`${title} [${kind}]`, () => body(kind));
}

export interface StoreTarget {
  kind: Backend;
  /** The file path (SQLite) or the database address (PostgreSQL). */
  where: string;
  /** Opens (another) store on the same database; closed after the test. */
  open(options?: { now?: () => Date; readOnly?: boolean }): Promise<Store>;
  /** Raw SQL on the same database, outside the store: `?` placeholders on both. */
  rows(sql: string, ...params: unknown[]): Promise<Record<string, unknown>[]>;
  /** The first column of the first row. */
  value(sql: string, ...params: unknown[]): Promise<unknown>;
  /** Drops the append-only guards, as someone with write access to the database could (tamper tests). */
  dropGuards(): Promise<void>;
}

const opened: Store[] = [];
const raws: Database.Database[] = [];
afterEach(async () => {
  while (opened.length) await opened.pop()?.close();
  while (raws.length) raws.pop()?.close();
});
afterAll(async () => {
  (await sharedPostgres())?.stop();
});

let template: Promise<string> | null = null;

/**
 * A fresh database of this kind: a new file, or a copy of a PostgreSQL database the store has
 * already migrated (copying a template is quicker than migrating each test's database; `empty`
 * gives a database with no schema at all, for the migration tests).
 */
export async function storeTarget(kind: Backend, options: { empty?: boolean } = {}): Promise<StoreTarget> {
  if (kind === 'sqlite') {
    const path = tempDbPath();
    const raw = () => {
      const db = new Database(path);
      raws.push(db);
      return db;
    };
    return {
      kind,
      where: path,
      async open(options = {}) {
        const store = openStore(path, options);
        opened.push(store);
        return store;
      },
      async rows(sql, ...params) {
        const statement = raw().prepare(sql);
        if (!statement.reader) {
          statement.run(...params);
          return [];
        }
        return statement.all(...params) as Record<string, unknown>[];
      },
      async value(sql, ...params) {
        const row = raw().prepare(sql).raw().get(...params) as unknown[] | undefined;
        return row?.[0];
      },
      async dropGuards() {
        raw().exec('DROP TRIGGER IF EXISTS steps_no_update; DROP TRIGGER IF EXISTS steps_no_delete; DROP TRIGGER IF EXISTS screenshots_fixed_bytes; DROP TRIGGER IF EXISTS run_events_no_update; DROP TRIGGER IF EXISTS run_events_no_delete; DROP TRIGGER IF EXISTS runs_genesis_fixed');
      },
    };
  }
  const cluster = await sharedPostgres();
  if (!cluster) throw new Error('PostgreSQL is not installed (check skipPostgres first)');
  template ??= (async () => {
    const url = await cluster.createDatabase('store_template');
    await (await openPgStore(url)).close();
    return new URL(url).pathname.slice(1);
  })();
  const url = await cluster.createDatabase('store', options.empty ? undefined : await template);
  const database = new URL(url).pathname.slice(1);
  const numbered = (sql: string) => {
    let n = 0;
    return sql.replace(/\?/g, () => `$${++n}`);
  };
  const rows = (sql: string, ...params: unknown[]) => cluster.query(database, numbered(sql), params);
  return {
    kind,
    where: url,
    async open(options = {}) {
      const store = await openPgStore(url, options);
      opened.push(store);
      return store;
    },
    rows,
    async value(sql, ...params) {
      const [row] = await rows(sql, ...params);
      return row ? Object.values(row)[0] : undefined;
    },
    async dropGuards() {
      await cluster.query(
        database,
        `DROP TRIGGER IF EXISTS steps_no_update ON steps; DROP TRIGGER IF EXISTS steps_no_delete ON steps;
         DROP TRIGGER IF EXISTS screenshots_fixed_bytes ON screenshots;
         DROP TRIGGER IF EXISTS run_events_no_update ON run_events; DROP TRIGGER IF EXISTS run_events_no_delete ON run_events;
         DROP TRIGGER IF EXISTS runs_genesis_fixed ON runs`,
      );
    },
  };
}
