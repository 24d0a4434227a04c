import { dataFolder } from './location';
import { homedir } from 'node:os';
import { DATABASE_URL_ENV, openPgStore, type PgStoreOptions } from './pg-store';
import type { Store } from './store-api';
import { openStore, type StoreOptions } from './store';
import { StoreOpenError } from './database';

/** Which store a composition root opens: an office database when configured, else this desk's file. */
interface StoreLocation {
  /** The SQLite file (`--db`, or the default). */
  dbPath: string;
  /** Read PORTAL_DESK_DATABASE_URL from here (default: process.env). */
  env?: NodeJS.ProcessEnv;
  readOnly?: boolean;
  now?: () => Date;
}

/** True when the environment names an office database (postgres://… or postgresql://…). */
export function officeDatabaseUrl(env: NodeJS.ProcessEnv = process.env): string | null {
  const url = env[DATABASE_URL_ENV]?.trim();
  return url ? url : null;
}

/**
 * Opens the store the desk is configured for: `PORTAL_DESK_DATABASE_URL=postgres://…` chooses
 * the office's PostgreSQL store (the vault, receipts and the desk's own files stay in its data
 * folder), otherwise the SQLite file at `dbPath`. A value that is not a PostgreSQL address is
 * refused in one line (a StoreOpenError) rather than silently ignored.
 */
export async function openConfiguredStore(location: StoreLocation): Promise<Store> {
  const env = location.env ?? process.env;
  const url = officeDatabaseUrl(env);
  if (url === null) {
    const options: StoreOptions = { readOnly: location.readOnly };
    if (location.now) options.now = location.now;
    return openStore(location.dbPath, options);
  }
  if (!/^postgres(ql)?:\/\//i.test(url)) {
    throw new StoreOpenError(`${DATABASE_URL_ENV}`, 'it is not a PostgreSQL address (postgres://user@host:port/database); unset it to use this desk\'s own store');
  }
  const options: PgStoreOptions = { readOnly: location.readOnly, localFolder: dataFolder(env, homedir()) };
  if (location.now) options.now = location.now;
  return openPgStore(url, options);
}
